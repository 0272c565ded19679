/// The page's curve editor (docs/inspector.md): a timing token as a cubic Bézier whose two handles are
/// dragged on a canvas; applied to this uid's overlay with theme.set, so running tweens that use the token
/// change course (docs/themes.md#live-retune), or to a named `Tween` the page saw added. Appended to `InspectorScript` (one script: it uses its
/// `rpc`, `theme` and `InspectorSpringEditor`'s `applyToken`).
enum InspectorCurveEditor {
    static let text = #"""

        // The curve editor: CSS's named cubic Béziers, cubic-bezier(…) text and [x1, y1, x2, y2] are editable;
        // other timings (steps, linear(…), presets) start from ease.
        const beziers = {ease: [0.25, 0.1, 0.25, 1], "ease-in": [0.42, 0, 1, 1], "ease-out": [0, 0, 0.58, 1],
                         "ease-in-out": [0.42, 0, 0.58, 1], linear: [0, 0, 1, 1]};
        const curveEditor = {points: [0.25, 0.1, 0.25, 1], dragging: -1, editable: true, token: null, sampled: []};
        window.inspector.curve = curveEditor;
        function bezierOf(value) {
          if (Array.isArray(value) && value.length === 4 && value.every(Number.isFinite)) return value.slice();
          if (typeof value !== "string") return null;
          if (beziers[value]) return beziers[value].slice();
          const match = value.match(/^cubic-bezier\(([^)]*)\)$/);
          const points = match ? match[1].split(",").map(Number) : [];
          return points.length === 4 && points.every(Number.isFinite) ? points : null;
        }
        function loadTimings() {
          const timings = (theme && theme.tokens.timings) || {}, select = $("timing-token"), current = select.value;
          select.textContent = "";
          for (const name of Object.keys(timings).sort()) {
            const option = document.createElement("option"); option.textContent = name; select.appendChild(option);
          }
          if (current && timings[current]) select.value = current;
          showTiming();
        }
        function showTiming() {
          const token = ((theme && theme.tokens.timings) || {})[$("timing-token").value];
          const points = token ? bezierOf(token.value) : null;
          curveEditor.editable = points !== null;
          curveEditor.token = token ? token.value : null;
          curveEditor.points = points || beziers.ease.slice();
          drawBezier();
          sampleTiming();
        }
        // The timing as the daemon runs it: `plan.sample` of a one-second tween from 0 to 1 (the token's own
        // curve until a handle moves: steps, linear(…) and a desktop's named easings too; then the Bézier).
        function currentTiming() {
          return curveEditor.editable ? `cubic-bezier(${curveEditor.points.join(", ")})` : curveEditor.token;
        }
        let sampling = null;
        async function sampleTiming() {
          const timing = currentTiming();
          if (timing === null || timing === undefined) { curveEditor.sampled = []; drawBezier(); return; }
          const asked = sampling = JSON.stringify(timing);
          try {
            const times = Array.from({length: 101}, (_, i) => i / 100);
            const reply = await rpc("plan.sample", {plan: {type: "Tween", property: "x", from: [0], to: [1], duration: 1, timing}, times});
            if (asked !== sampling) return;  // a newer one is on its way
            curveEditor.sampled = reply.samples.map((s) => [s.t, s.value[0]]);
          } catch (error) { curveEditor.sampled = []; }
          drawBezier();
          exportTokens();
        }
        // The unit square, with room above and below for handles past 0 and 1 (y may leave [0, 1]).
        const box = {left: 30, top: 60, size: 240};
        const toCanvas = (x, y) => [box.left + x * box.size, box.top + (1 - y) * box.size];
        const fromCanvas = (cx, cy) => [Math.min(1, Math.max(0, (cx - box.left) / box.size)),
                                        Math.min(2, Math.max(-1, 1 - (cy - box.top) / box.size))];
        function drawBezier() {
          const canvas = $("bezier"), g = canvas.getContext("2d"), [x1, y1, x2, y2] = curveEditor.points;
          g.clearRect(0, 0, canvas.width, canvas.height);
          g.strokeStyle = "#333"; g.strokeRect(box.left, box.top, box.size, box.size);
          const [sx, sy] = toCanvas(0, 0), [ex, ey] = toCanvas(1, 1), [ax, ay] = toCanvas(x1, y1), [bx, by] = toCanvas(x2, y2);
          g.strokeStyle = "#666"; g.beginPath(); g.moveTo(sx, sy); g.lineTo(ax, ay); g.moveTo(ex, ey); g.lineTo(bx, by); g.stroke();
          g.strokeStyle = "#88c0d0"; g.lineWidth = 2; g.beginPath(); g.moveTo(sx, sy); g.bezierCurveTo(ax, ay, bx, by, ex, ey); g.stroke();
          if (curveEditor.sampled.length) {
            // The daemon's own samples over it (dots): where they leave the line, the token is not this Bézier.
            g.fillStyle = "#bf616a";
            for (const [t, v] of curveEditor.sampled) { const [px, py] = toCanvas(t, v); g.fillRect(px - 1.5, py - 1.5, 3, 3); }
          }
          g.lineWidth = 1;
          for (const [hx, hy] of [[ax, ay], [bx, by]]) { g.fillStyle = "#ebcb8b"; g.beginPath(); g.arc(hx, hy, 6, 0, 2 * Math.PI); g.fill(); }
          const text = `cubic-bezier(${curveEditor.points.map((p) => +p.toFixed(3)).join(", ")})`;
          $("bezier-text").textContent = curveEditor.editable ? text
            : `${JSON.stringify(curveEditor.token)} (dots: the daemon's samples of it; not a Bézier: a handle moved replaces it with one, from ease)`;
        }
        function handleAt(event) {
          const rect = $("bezier").getBoundingClientRect(), cx = event.clientX - rect.left, cy = event.clientY - rect.top;
          const [x1, y1, x2, y2] = curveEditor.points;
          const distances = [toCanvas(x1, y1), toCanvas(x2, y2)].map(([hx, hy]) => Math.hypot(hx - cx, hy - cy));
          return {handle: distances[0] <= distances[1] ? 0 : 1, near: Math.min(...distances) < 14, cx, cy};
        }
        $("bezier").onpointerdown = (event) => {
          const hit = handleAt(event);
          if (!hit.near) return;
          curveEditor.dragging = hit.handle;
          $("bezier").setPointerCapture(event.pointerId);
        };
        $("bezier").onpointermove = (event) => {
          if (curveEditor.dragging < 0) return;
          const {cx, cy} = handleAt(event), [x, y] = fromCanvas(cx, cy);
          curveEditor.points.splice(curveEditor.dragging * 2, 2, +x.toFixed(3), +y.toFixed(3));
          curveEditor.editable = true;
          drawBezier();
        };
        $("bezier").onpointerup = () => { curveEditor.dragging = -1; sampleTiming(); };
        $("timing-token").onchange = showTiming;

        // Named tweens seen in the trace, "runtime · target · name" -> {runtime, target, name, plan, t}: "Apply
        // to the tween" adds one again under its name with the edited curve, carried on as a theme's retune
        // carries a tween (docs/themes.md#live-retune): from the property's value and velocity, for the part
        // of its duration it had left by the daemon's clock (the trace's and the frames' `t`).
        const namedTweens = new Map();
        window.inspector.namedTweens = namedTweens;
        $("apply-tween").onclick = async () => {
          const chosen = namedTweens.get($("named-tween").value);
          if (!chosen) return;
          const plan = Object.assign({}, chosen.plan), property = props.get(`${chosen.runtime}/${chosen.target}/${plan.property}`);
          // A loop is not a way somewhere: as a theme's retune, the page does not carry one on.
          if (plan.repeat !== undefined || plan.autoreverse) {
            $("tween-applied").textContent = "a repeating tween is not carried on: apply the curve to its timing token";
            return;
          }
          // Told by runtime.state at open: asked again now, on the runtime's own clock (paused or slowed
          // meanwhile, the wall clock would overstate it).
          let running = chosen.running;
          if (running !== undefined) {
            const state = await rpc("runtime.state", {runtime: chosen.runtime}).catch(() => null);
            const now = state && state.targets[chosen.target] && (state.targets[chosen.target].namedPlans || {})[chosen.name];
            running = now ? now.running : running + (performance.now() - chosen.seenLocal) / 1000;
          }
          const elapsed = running !== undefined ? running : Math.max(0, latestT - chosen.t);
          const duration = plan.duration ?? 0.25, delay = plan.delay || 0;
          if (elapsed >= delay) {
            delete plan.from; delete plan.delay;
            plan.duration = Math.max(0, duration - (elapsed - delay));
            if (property && property.velocity) plan.velocity = property.velocity;
          } else {
            plan.delay = delay - elapsed;
          }
          plan.timing = `cubic-bezier(${curveEditor.points.join(", ")})`;
          try {
            await rpc("plan.add", {runtime: chosen.runtime, target: chosen.target, name: chosen.name, plan});
            $("tween-applied").textContent = `applied to ${chosen.name}`;
          } catch (error) { $("tween-applied").textContent = `${error.code}: ${error.message}`; }
        };
        $("apply-timing").onclick = () => applyToken("timings", $("timing-token").value,
          `cubic-bezier(${curveEditor.points.join(", ")})`, $("timing-applied"));
        """#
}
