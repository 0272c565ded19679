/// The page's script (docs/inspector.md): plain JavaScript, no libraries. It talks to motiond through the
/// inspector's WebSocket (`InspectorBridge`): frames and trace as motiond sends them, requests as
/// `{id, method, params}`.
enum InspectorScript {
    static let text = #"""
        "use strict";
        const token = new URLSearchParams(location.search).get("token");
        const socket = new WebSocket(`ws://${location.host}/ws?token=${token}`);
        const waiting = new Map();
        let nextId = 0;
        const props = new Map();        // "runtime/target/property" -> {runtime, target, property, value, velocity, history}
        const trace = [];               // {t, kind, runtime, target}
        const recorded = [];            // the frames as they came (JSON lines download)
        // `chosen`: the property whose runtime the controls act on; `shown`: every property graphed (a
        // click shows one, a shift- or ctrl-click adds or removes one).
        let chosen = null, latestT = 0, windowSeconds = 6;
        const shown = new Set();
        const speed = {runtime: null, factor: 1, attached: false, slowed: null};
        const $ = (id) => document.getElementById(id);
        window.inspector = {props, trace, speed, shown, get chosen() { return chosen; }, get tokens() { return tokens; }, get theme() { return theme; }};

        function rpc(method, params = {}) {
          const id = ++nextId;
          socket.send(JSON.stringify({id, method, params}));
          return new Promise((resolve, reject) => waiting.set(id, {resolve, reject}));
        }

        // Errors are shown beside the connection's state (and kept for tests), not lost in the console.
        const errors = [];
        window.inspector.errors = errors;
        function report(error) {
          errors.push(String(error && (error.stack || error.message || error.code) || error));
          $("status").textContent = `connected; ${errors.length} error(s), the last: ${errors[errors.length - 1]}`;
        }
        window.addEventListener("error", (event) => report(event.error || event.message));
        window.addEventListener("unhandledrejection", (event) => report(event.reason));
        socket.onopen = async () => {
          $("status").textContent = "connected";
          await rpc("subscribe", {streams: ["frames", "trace"]});
          // Each on its own: one that fails leaves the other's part of the page working.
          await Promise.all([seed().catch(report), loadTokens().catch(report)]);
        };
        // What this uid's default runtime holds already, at rest or moving, with the named plans it runs
        // (`runtime.state`): a program started before the page is seen and tuned too. Other runtimes are
        // learnt as their frames and trace come.
        async function seed() {
          let after;
          do {
            // Refused (a uid at its runtimes quota has no default runtime to read): the page learns from frames.
            const state = await rpc("runtime.state", after ? {after} : {}).catch(() => null);
            if (!state) return;
            for (const [target, held] of Object.entries(state.targets)) {
              for (const [property, p] of Object.entries(held.properties)) {
                const key = keyOf({runtime: state.runtime, target, property});
                if (props.has(key)) continue;
                props.set(key, {runtime: state.runtime, target, property, value: p.value, velocity: p.velocity, history: []});
                if (!chosen) chosen = key;
              }
              for (const [name, added] of Object.entries(held.namedPlans || {})) {
                namedPlanSeen({kind: "plan.named.added", runtime: state.runtime, target, name, plan: added.plan,
                               running: added.running, seenLocal: performance.now()});
              }
            }
            after = state.next;
          } while (after);
          renderTree();
          if (chosen) choose(chosen);
        }
        socket.onclose = () => { $("status").textContent = "disconnected (reload to connect again)"; };
        socket.onmessage = (message) => {
          const data = JSON.parse(message.data);
          if (data.id !== undefined && waiting.has(data.id)) {
            const call = waiting.get(data.id);
            waiting.delete(data.id);
            if (data.error) call.reject(data.error); else call.resolve(data.result);
            return;
          }
          if (data.event === "frame") frame(data);
          else if (data.event === "trace") traced(data);
        };

        function keyOf(u) { return `${u.runtime}/${u.target}/${u.property}`; }

        function frame(event) {
          latestT = event.t;
          recorded.push(event);
          if (recorded.length > 20000) recorded.splice(0, recorded.length - 20000);
          for (const u of event.updates || []) {
            const key = keyOf(u);
            let p = props.get(key);
            if (!p) {
              p = {runtime: u.runtime, target: u.target, property: u.property, history: []};
              props.set(key, p);
              if (!chosen) chosen = key;  // the first property seen is shown until another is chosen
              renderTree();
              if (chosen === key) choose(key);
            }
            p.value = u.value; p.velocity = u.velocity;
            p.history.push({t: event.t, value: u.value.slice(), velocity: (u.velocity || []).slice()});
            while (p.history.length && p.history[0].t < event.t - 30) p.history.shift();
            const cell = document.querySelector(`[data-key="${CSS.escape(key)}"] .value`);
            if (cell) cell.textContent = u.value.map((x) => x.toFixed(3)).join(", ");
          }
        }

        function traced(event) {
          namedPlanSeen(event);
          trace.push({t: event.t, kind: event.kind, runtime: event.runtime, target: event.target});
          if (trace.length > 2000) trace.shift();
          const item = document.createElement("li");
          item.textContent = `${event.t.toFixed(3)}  ${event.kind}  ${event.runtime || ""} ${event.target || ""}`;
          $("trace").prepend(item);
          while ($("trace").children.length > 200) $("trace").lastChild.remove();
          if (event.kind === "theme.changed") loadTokens();
        }

        function renderTree() {
          const byRuntime = new Map();
          for (const [key, p] of props) {
            if (!byRuntime.has(p.runtime)) byRuntime.set(p.runtime, new Map());
            const targets = byRuntime.get(p.runtime);
            if (!targets.has(p.target)) targets.set(p.target, []);
            targets.get(p.target).push([key, p]);
          }
          const tree = $("tree");
          tree.textContent = "";
          for (const [runtime, targets] of byRuntime) {
            const r = document.createElement("details"); r.open = true;
            r.innerHTML = `<summary></summary>`; r.firstChild.textContent = runtime;
            for (const [target, list] of targets) {
              const t = document.createElement("details"); t.open = true;
              t.innerHTML = `<summary></summary>`; t.firstChild.textContent = target;
              for (const [key, p] of list) {
                const row = document.createElement("div");
                row.className = "property" + (key === chosen || shown.has(key) ? " chosen" : "");
                row.dataset.key = key;
                row.innerHTML = `<span class="name"></span>: <span class="value"></span>`;
                row.querySelector(".name").textContent = p.property;
                row.querySelector(".value").textContent = (p.value || []).map((x) => x.toFixed(3)).join(", ");
                row.onclick = (event) => choose(key, event.shiftKey || event.ctrlKey || event.metaKey);
                t.appendChild(row);
              }
              r.appendChild(t);
            }
            tree.appendChild(r);
          }
        }

        function choose(key, adding = false) {
          if (adding && shown.has(key) && shown.size > 1) {
            shown.delete(key);
            if (chosen === key) chosen = shown.values().next().value;
          } else {
            if (!adding) shown.clear();
            shown.add(key);
            chosen = key;
          }
          const p = props.get(chosen);
          $("chosen").textContent = `${p.runtime} · ${p.target} · ${p.property}` + (shown.size > 1 ? ` (+${shown.size - 1} more)` : "");
          renderTree();
        }

        // Every component of every shown property, one colour each, on one scale; a legend names them.
        const palette = ["#88c0d0", "#ebcb8b", "#a3be8c", "#b48ead", "#d08770", "#bf616a", "#8fbcbb", "#5e81ac"];
        function plot(canvas, field) {
          const g = canvas.getContext("2d"), w = canvas.width, h = canvas.height;
          g.clearRect(0, 0, w, h);
          const lines = [];
          for (const key of shown) {
            const p = props.get(key);
            if (!p) continue;
            const points = p.history.filter((s) => s.t >= latestT - windowSeconds);
            const width = points.reduce((most, s) => Math.max(most, s[field].length), 0);
            for (let d = 0; d < width; d++) lines.push({name: `${p.target}.${p.property}[${d}]`, points: points.filter((s) => d < s[field].length).map((s) => [s.t, s[field][d]])});
          }
          const all = lines.flatMap((l) => l.points.map((q) => q[1]));
          if (!all.length) return;
          let lo = Math.min(...all), hi = Math.max(...all);
          if (hi - lo < 1e-9) { lo -= 1; hi += 1; }
          const x = (t) => (t - (latestT - windowSeconds)) / windowSeconds * w;
          const y = (v) => h - 10 - (v - lo) / (hi - lo) * (h - 20);
          g.strokeStyle = "#333"; g.beginPath(); g.moveTo(0, y(0)); g.lineTo(w, y(0)); g.stroke();
          g.lineWidth = 2; g.font = "11px monospace";
          const colour = (i) => palette[(i + (field === "velocity" ? 1 : 0)) % palette.length];
          lines.forEach((line, i) => {
            g.strokeStyle = colour(i); g.beginPath();
            line.points.forEach(([t, v], j) => j ? g.lineTo(x(t), y(v)) : g.moveTo(x(t), y(v)));
            g.stroke();
            if (lines.length > 1) { g.fillStyle = colour(i); g.fillText(line.name, w - 8 - 7 * line.name.length, 12 + 12 * i); }
          });
          g.fillStyle = "#aaa";
          g.fillText(`${field} ${hi.toFixed(3)}`, 4, 12); g.fillText(lo.toFixed(3), 4, h - 2);
        }

        function drawTimeline() {
          const canvas = $("timeline"), g = canvas.getContext("2d"), w = canvas.width, h = canvas.height;
          g.clearRect(0, 0, w, h);
          const colors = {"animation.ended": "#a3be8c", "performer.created": "#88c0d0", "plan.added": "#ebcb8b", "theme.changed": "#b48ead"};
          for (const e of trace) {
            if (e.t < latestT - windowSeconds) continue;
            const x = (e.t - (latestT - windowSeconds)) / windowSeconds * w;
            g.fillStyle = colors[e.kind] || "#d08770";
            g.fillRect(x, 4, 2, h - 8);
          }
        }

        function draw() {
          if (shown.size) {
            plot($("value-graph"), "value");
            plot($("velocity-graph"), "velocity");
          }
          drawTimeline();
          requestAnimationFrame(draw);
        }
        requestAnimationFrame(draw);

        // Pause and scrubbing: the chosen runtime's timeline (timeline.attach/scrub/detach); slow motion: its
        // own speed (runtime.speed, its owner's), so it goes on moving by the engine's clock.
        function chosenRuntime() { return chosen ? props.get(chosen).runtime : "default"; }
        async function ownPace() {
          if (speed.slowed !== null) await rpc("runtime.speed", {runtime: speed.slowed, speed: 1});
          speed.slowed = null;
        }
        async function attach() {
          const runtime = chosenRuntime();
          await ownPace();
          if (speed.attached && speed.runtime === runtime) return speed.clock;
          // Another runtime was paused here: it goes live before this one is paused.
          if (speed.attached) await rpc("timeline.detach", {runtime: speed.runtime});
          const now = await rpc("timeline.detach", {runtime});
          const reply = await rpc("timeline.attach", {runtime, offset: Math.min(600, now.clock)});
          Object.assign(speed, {runtime, attached: true, clock: reply.offset});
          $("scrub").disabled = false; $("scrub").max = Math.max(1, now.clock); $("scrub").value = reply.offset;
          $("offset").textContent = `${reply.offset.toFixed(3)} s`;
          return reply.offset;
        }
        let scrubbing = false;
        async function scrubTo(offset) {
          if (scrubbing) return;
          scrubbing = true;
          try {
            const reply = await rpc("timeline.scrub", {runtime: speed.runtime, offset: Math.max(0, Math.min(600, offset))});
            speed.clock = reply.offset;
            $("scrub").value = reply.offset;
            $("offset").textContent = `${reply.offset.toFixed(3)} s`;
          } finally { scrubbing = false; }
        }
        function mark(button) {
          for (const b of document.querySelectorAll("#controls button")) b.classList.remove("active");
          if (button) button.classList.add("active");
        }
        $("pause").onclick = async () => { speed.factor = 0; await attach(); mark($("pause")); };
        for (const button of document.querySelectorAll(".speed")) {
          button.onclick = async () => {
            const factor = Number(button.dataset.speed);
            if (factor >= 1) return $("live").onclick();
            await $("live").onclick();
            const runtime = chosenRuntime();
            await rpc("runtime.speed", {runtime, speed: factor});
            Object.assign(speed, {factor, slowed: runtime});
            mark(button);
          };
        }
        $("live").onclick = async () => {
          await ownPace();
          if (speed.attached) await rpc("timeline.detach", {runtime: speed.runtime});
          Object.assign(speed, {attached: false, factor: 1});
          $("scrub").disabled = true; $("offset").textContent = "";
          mark(null);
        };
        $("scrub").oninput = async () => { speed.factor = 0; mark($("pause")); await scrubTo(Number($("scrub").value)); };
        $("download").onclick = () => {
          const blob = new Blob([recorded.map((e) => JSON.stringify(e)).join("\n") + "\n"], {type: "application/x-ndjson"});
          const link = document.createElement("a");
          link.href = URL.createObjectURL(blob); link.download = "frames.jsonl"; link.click();
        };

        """#
}
