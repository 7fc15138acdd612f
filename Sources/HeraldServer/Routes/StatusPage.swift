/// The status page: one self-contained document (no script, style or font from elsewhere, which
/// its Content-Security-Policy also forbids) that renders `GET /status` every five seconds. Every
/// value is written with `textContent`, never as markup: reasons come from providers. Elements
/// carry `data-field` names, which the browser check (ops/prove-status-page.sh) reads.
enum StatusPage {
    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Herald status</title>
        <style>
        :root { --fg:#1d2330; --muted:#5d6677; --line:#d9dee8; --bg:#f5f7fa; --card:#fff;
                --ok:#1f8f4e; --warn:#b7791f; --bad:#c53030; --dead:#d69e2e; --rej:#dd6b20; --fail:#c53030; --na:#805ad5; --del:#38a169; }
        * { box-sizing: border-box; }
        body { margin:0; font:14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color:var(--fg); background:var(--bg); }
        header { display:flex; flex-wrap:wrap; align-items:baseline; gap:.4em 1.2em; padding:14px 22px; background:#1d2330; color:#fff; }
        header h1 { font-size:18px; margin:0; }
        header span { color:#c3cad8; }
        main { padding:18px 22px; max-width:1200px; }
        .cards { display:grid; grid-template-columns:repeat(auto-fill, minmax(190px, 1fr)); gap:12px; margin-bottom:18px; }
        .card { background:var(--card); border:1px solid var(--line); border-radius:8px; padding:10px 14px; }
        .card h2 { font-size:12px; text-transform:uppercase; letter-spacing:.05em; color:var(--muted); margin:0 0 4px; font-weight:600; }
        .big { font-size:22px; font-weight:600; }
        .ok { color:var(--ok); } .warn { color:var(--warn); } .bad { color:var(--bad); }
        section { background:var(--card); border:1px solid var(--line); border-radius:8px; padding:12px 16px; margin-bottom:18px; }
        section h2 { font-size:15px; margin:0 0 10px; }
        table { border-collapse:collapse; width:100%; }
        th, td { text-align:left; padding:5px 8px; border-bottom:1px solid var(--line); vertical-align:top; }
        th { font-size:12px; color:var(--muted); font-weight:600; }
        td.num, th.num { text-align:right; font-variant-numeric:tabular-nums; }
        ul.problems { margin:4px 0 0; padding-left:18px; color:var(--bad); }
        .legend span { display:inline-block; margin-right:14px; font-size:12px; color:var(--muted); }
        .legend i { display:inline-block; width:10px; height:10px; border-radius:2px; margin-right:4px; vertical-align:-1px; }
        #banner { display:none; padding:10px 22px; background:#fed7d7; color:#742a2a; }
        .muted { color:var(--muted); }
        code { font-size:12px; }
        </style>
        </head>
        <body>
        <header>
          <h1>Herald <span data-field="node">…</span></h1>
          <span>mode <b data-field="mode">…</b></span>
          <span>version <b data-field="version">…</b> (<code data-field="commit">…</code>)</span>
          <span>up <b data-field="uptime">…</b></span>
          <span>updated <b data-field="generated">…</b></span>
        </header>
        <div id="banner" data-field="error"></div>
        <main>
          <div class="cards">
            <div class="card"><h2>Health</h2><div class="big" data-field="health">…</div></div>
            <div class="card"><h2>Readiness</h2><div class="big" data-field="readiness">…</div><ul class="problems" data-field="problems"></ul></div>
            <div class="card"><h2>Pushes a second</h2><div class="big" data-field="per-second">…</div><div class="muted">over the last complete minute; <span data-field="this-minute">…</span> this minute</div></div>
            <div class="card"><h2>Accepted queue</h2><div class="big" data-field="queue-accepted">…</div><div class="muted">oldest <span data-field="queue-oldest">…</span></div></div>
            <div class="card"><h2>In flight</h2><div class="big" data-field="queue-inflight">…</div><div class="muted">at the providers</div></div>
            <div class="card"><h2>Command log</h2><div class="big"><span data-field="applied">…</span></div><div class="muted">applied of head <span data-field="log-head">…</span></div></div>
          </div>
          <section>
            <h2>Pushes, last 15 minutes</h2>
            <div class="legend">
              <span><i style="background:var(--del)"></i>delivered</span><span><i style="background:var(--dead)"></i>dead token</span>
              <span><i style="background:var(--rej)"></i>rejected</span><span><i style="background:var(--fail)"></i>failed</span>
              <span><i style="background:var(--na)"></i>not admitted</span>
            </div>
            <svg data-field="chart" width="100%" height="140" viewBox="0 0 900 140" preserveAspectRatio="none" role="img" aria-label="pushes a minute by outcome"></svg>
            <table><thead><tr><th>minute</th><th class="num">delivered</th><th class="num">dead token</th><th class="num">rejected</th><th class="num">failed</th><th class="num">not admitted</th></tr></thead>
            <tbody data-field="minutes"></tbody></table>
          </section>
          <section>
            <h2>Apps and providers</h2>
            <table><thead><tr><th>app</th><th>provider</th><th>endpoint</th><th class="num">connections</th><th class="num">in flight</th><th class="num">connect failures</th><th class="num">delivered (min)</th><th class="num">failed (min)</th><th>last failure</th></tr></thead>
            <tbody data-field="providers"></tbody></table>
            <p class="muted" data-field="no-apps" hidden>No app is configured: this node delivers nothing.</p>
          </section>
          <section data-field="cluster" hidden>
            <h2>Cluster</h2>
            <div class="cards">
              <div class="card"><h2>Members</h2><div class="big" data-field="cluster-members">…</div></div>
              <div class="card"><h2>Partitions here</h2><div class="big"><span data-field="cluster-owned">…</span> / <span data-field="cluster-partitions">…</span></div></div>
              <div class="card"><h2>Lag</h2><div class="big" data-field="cluster-lag">…</div><div class="muted">log positions to apply</div></div>
              <div class="card"><h2>etcd</h2><div class="big" data-field="cluster-etcd">…</div></div>
            </div>
            <table><thead><tr><th>member</th><th>address</th><th class="num">partitions</th></tr></thead><tbody data-field="cluster-table"></tbody></table>
          </section>
        </main>
        <script>
        "use strict";
        const field = (name) => document.querySelector('[data-field="' + name + '"]');
        const set = (name, value, cls) => { const el = field(name); el.textContent = String(value); if (cls !== undefined) el.className = "big " + cls; };
        const cell = (row, value, cls, name) => { const td = document.createElement("td"); td.textContent = String(value); if (cls) td.className = cls; if (name) td.dataset.field = name; row.appendChild(td); return td; };
        const duration = (s) => s < 90 ? s + " s" : s < 5400 ? Math.round(s / 60) + " min" : s < 172800 ? (s / 3600).toFixed(1) + " h" : (s / 86400).toFixed(1) + " d";
        const time = (iso) => new Date(iso).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });
        const colors = [["delivered", "--del"], ["deadToken", "--dead"], ["rejected", "--rej"], ["failed", "--fail"], ["notAdmitted", "--na"]];
        function chart(minutes) {
          const svg = field("chart"), ns = "http://www.w3.org/2000/svg";
          while (svg.firstChild) svg.removeChild(svg.firstChild);
          const max = Math.max(1, ...minutes.map((m) => colors.reduce((n, [k]) => n + m[k], 0)));
          const w = 900 / minutes.length;
          minutes.forEach((m, i) => {
            let y = 130;
            for (const [key, color] of colors) {
              const h = 120 * m[key] / max;
              if (h <= 0) continue;
              const rect = document.createElementNS(ns, "rect");
              rect.setAttribute("x", i * w + 2); rect.setAttribute("width", w - 4);
              rect.setAttribute("y", y - h); rect.setAttribute("height", h);
              rect.setAttribute("fill", getComputedStyle(document.documentElement).getPropertyValue(color));
              const title = document.createElementNS(ns, "title"); title.textContent = time(m.start) + ": " + m[key] + " " + key;
              rect.appendChild(title); svg.appendChild(rect); y -= h;
            }
          });
        }
        function render(s) {
          field("error").style.display = "none";
          set("node", s.node); set("mode", s.mode); set("version", s.version); set("commit", s.commit);
          set("uptime", duration(s.uptimeSeconds)); set("generated", new Date(s.generatedAt).toLocaleTimeString());
          set("health", s.health, s.health === "ok" ? "ok" : "bad");
          set("readiness", s.readiness.status, s.readiness.status === "ready" ? "ok" : "bad");
          const problems = field("problems"); problems.replaceChildren();
          for (const p of s.readiness.problems) { const li = document.createElement("li"); li.textContent = p; problems.appendChild(li); }
          set("per-second", s.pushes.perSecond.toFixed(1));
          const now = s.pushes.minutes[s.pushes.minutes.length - 1];
          set("this-minute", now ? colors.reduce((n, [k]) => n + now[k], 0) : 0);
          set("queue-accepted", s.queue.accepted); set("queue-oldest", s.queue.accepted ? duration(Math.round(s.queue.oldestAcceptedSeconds)) : "none");
          set("queue-inflight", s.queue.inFlight);
          set("applied", s.readiness.appliedPosition); set("log-head", s.readiness.logHead);
          chart(s.pushes.minutes);
          const minutes = field("minutes"); minutes.replaceChildren();
          for (const m of s.pushes.minutes.slice().reverse().slice(0, 5)) {
            const row = document.createElement("tr"); cell(row, time(m.start));
            for (const [key] of colors) cell(row, m[key], "num");
            minutes.appendChild(row);
          }
          const providers = field("providers"); providers.replaceChildren();
          for (const app of s.apps) for (const p of app.providers) {
            const row = document.createElement("tr"); row.dataset.app = app.id; row.dataset.provider = p.name;
            const last = p.minutes[p.minutes.length - 1] || {};
            cell(row, app.id, "", "app"); cell(row, p.name, "", "provider"); cell(row, p.endpoint, "muted", "endpoint");
            cell(row, p.connections, "num", "connections"); cell(row, p.inFlight, "num", "in-flight");
            cell(row, p.connectFailures, "num" + (p.connectFailures ? " warn" : ""), "connect-failures");
            cell(row, last.delivered || 0, "num", "delivered");
            cell(row, (last.deadToken || 0) + (last.rejected || 0) + (last.failed || 0) + (last.notAdmitted || 0), "num", "not-delivered");
            cell(row, p.lastFailure ? time(p.lastFailure.at) + " " + p.lastFailure.result + ": " + p.lastFailure.reason : "none", p.lastFailure ? "bad" : "muted", "last-failure");
            providers.appendChild(row);
          }
          field("no-apps").hidden = s.apps.length > 0;
          const cluster = field("cluster");
          cluster.hidden = !s.cluster;
          if (s.cluster) {
            const c = s.cluster;
            set("cluster-members", c.members.length); set("cluster-owned", c.ownedHere); set("cluster-partitions", c.partitions);
            set("cluster-lag", c.lag, c.lag > 0 ? "warn" : "ok"); set("cluster-etcd", c.etcd, c.etcd === "reachable" ? "ok" : "bad");
            const table = field("cluster-table"); table.replaceChildren();
            for (const m of c.members) {
              const row = document.createElement("tr"); row.dataset.member = m.id;
              cell(row, m.id + (m.id === s.node ? " (this node)" : ""), "", "member"); cell(row, m.url, "muted", "url"); cell(row, m.partitions, "num", "partitions");
              table.appendChild(row);
            }
          }
          document.body.dataset.loaded = "true";
        }
        async function refresh() {
          try {
            const answer = await fetch("status", { cache: "no-store", credentials: "same-origin" });
            if (!answer.ok) throw new Error("GET /status answered " + answer.status);
            render(await answer.json());
          } catch (error) {
            const banner = field("error"); banner.textContent = "The node did not answer: " + error.message; banner.style.display = "block";
          }
        }
        refresh();
        setInterval(refresh, 5000);
        </script>
        </body>
        </html>
        """#
}
