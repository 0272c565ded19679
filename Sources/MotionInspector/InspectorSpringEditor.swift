/// The page's spring editor (docs/inspector.md): a theme token in its own spring form, the curve from
/// `plan.sample`, the export pane, and `applyToken` (a token written into this uid's overlay with
/// `theme.set`, the overlay's other tokens kept). Appended to `InspectorScript` (one script: it uses its
/// `rpc`, `$` and `window.inspector`); `InspectorCurveEditor` and `InspectorNamedPlans` use `editedSpring`,
/// `applyToken` and `exportTokens`.
enum InspectorSpringEditor {
    static let text = #"""

        // The spring editor: a theme token's stiffness and damping ratio, its curve from plan.sample, applied
        // to this uid's overlay with theme.set (running springs that use it change course).
        let tokens = {}, theme = null;
        async function loadTokens() {
          theme = await rpc("theme.get");
          tokens = theme.tokens.springs || {};
          const select = $("token"), current = select.value;
          select.textContent = "";
          for (const name of Object.keys(tokens).sort()) {
            const option = document.createElement("option"); option.textContent = name; select.appendChild(option);
          }
          if (current && tokens[current]) select.value = current;
          showToken();
          loadTimings();
        }
        // Every spring form of docs/vocabulary.md, two keys each: a slider (logarithmic where the range spans
        // decades) and the exact number beside it, never clamped to the slider. A token is shown in its own
        // form; the keys it holds beside the form's (`mass`, `epsilon`, `threshold`) are kept when applied.
        const forms = {
          "stiffness + dampingRatio": [["stiffness", 0.01, 1e5, true], ["dampingRatio", 0, 2, false]],
          "response + dampingRatio": [["response", 0.01, 10, true], ["dampingRatio", 0, 2, false]],
          "duration + bounce": [["duration", 0.01, 10, true], ["bounce", -0.95, 0.95, false]],
          "stiffness + damping": [["stiffness", 0.01, 1e5, true], ["damping", 0.01, 1e4, true]],
          "tension + damping": [["tension", 0.01, 1e5, true], ["damping", 0.01, 1e4, true]],
        };
        const keptKeys = {"stiffness + dampingRatio": ["mass", "epsilon", "threshold"], "response + dampingRatio": ["mass", "epsilon", "threshold"],
                          "duration + bounce": ["epsilon", "threshold"], "stiffness + damping": ["mass", "epsilon", "threshold"],
                          "tension + damping": ["epsilon", "threshold"]};
        for (const name of Object.keys(forms)) { const o = document.createElement("option"); o.textContent = name; $("form").appendChild(o); }
        // The keys kept beside the form's, and the form the inputs hold now (the select may have changed).
        let kept = {}, shownForm = "stiffness + dampingRatio";
        function formOf(value) {
          if ("response" in value) return "response + dampingRatio";
          if ("bounce" in value || "duration" in value) return "duration + bounce";
          if ("tension" in value) return "tension + damping";
          if ("damping" in value) return "stiffness + damping";
          return "stiffness + dampingRatio";
        }
        // Stiffness, damping and mass of a spring in any form (docs/vocabulary.md#springs), and back.
        function physics(spring) {
          const m = spring.mass ?? 1;
          if ("response" in spring) { const r = spring.response, z = spring.dampingRatio ?? 0.825; return {k: (2 * Math.PI / r) ** 2 * m, c: 4 * Math.PI * z * m / r, m}; }
          if ("duration" in spring || "bounce" in spring) {
            const r = spring.duration ?? 0.5, b = spring.bounce ?? 0, z = b >= 0 ? 1 - b : 1 / (1 + b);
            return {k: (2 * Math.PI / r) ** 2, c: 4 * Math.PI * z / r, m: 1};
          }
          const k = spring.stiffness ?? spring.tension ?? 120;
          if ("dampingRatio" in spring) return {k, c: 2 * spring.dampingRatio * Math.sqrt(k * m), m};
          return {k, c: spring.damping ?? 12, m};
        }
        function inForm(form, {k, c, m}) {
          const z = c / (2 * Math.sqrt(k * m)), r = 2 * Math.PI * Math.sqrt(m / k);
          const round = (x) => Number(x.toPrecision(6));
          switch (form) {
            case "response + dampingRatio": return {response: round(r), dampingRatio: round(z)};
            case "duration + bounce": return {duration: round(2 * Math.PI * Math.sqrt(1 / (k / m))), bounce: round(z <= 1 ? 1 - z : 1 / z - 1)};
            case "stiffness + damping": return {stiffness: round(k), damping: round(c)};
            case "tension + damping": return {tension: round(k / m), damping: round(c / m)};
            default: return {stiffness: round(k), dampingRatio: round(z)};
          }
        }
        function setSlider(index, value) {
          const [key, low, high, log] = forms[$("form").value][index];
          $(`p${index + 1}`).value = log ? Math.log10(Math.min(Math.max(value, low), high)) : Math.min(Math.max(value, low), high);
          $(`p${index + 1}-value`).value = value;
        }
        function showForm(values) {
          shownForm = $("form").value;
          forms[shownForm].forEach(([key, low, high, log], index) => {
            const slider = $(`p${index + 1}`);
            slider.min = log ? Math.log10(low) : low; slider.max = log ? Math.log10(high) : high;
            $(`p${index + 1}-label`).textContent = key;
            setSlider(index, values[key]);
          });
          $("kept").textContent = Object.keys(kept).length ? `kept: ${JSON.stringify(kept)}` : "";
        }
        function showToken() {
          const value = (tokens[$("token").value] || {}).value || {stiffness: 800, dampingRatio: 1};
          $("form").value = formOf(value);
          kept = {};
          for (const key of keptKeys[$("form").value]) if (key in value) kept[key] = value[key];
          showForm(Object.assign(inForm($("form").value, physics(value)), value));
          edited();
        }
        // Another form: the same spring said in it (mass is folded in where the form has none).
        $("form").onchange = () => {
          const before = physics(Object.assign(editedSpring(true), kept));
          kept = Object.fromEntries(Object.entries(kept).filter(([key]) => keptKeys[$("form").value].includes(key)));
          if (!keptKeys[$("form").value].includes("mass")) delete kept.mass;
          showForm(inForm($("form").value, "mass" in kept ? before : {k: before.k / before.m, c: before.c / before.m, m: 1}));
          edited();
        };
        for (const index of [1, 2]) {
          $(`p${index}`).oninput = () => {
            const [, , , log] = forms[$("form").value][index - 1];
            const value = log ? 10 ** Number($(`p${index}`).value) : Number($(`p${index}`).value);
            $(`p${index}-value`).value = Number(value.toPrecision(4));
            edited();
          };
          // Typing moves the slider only: the box keeps what is typed ("-", "0.") until it is a number.
          $(`p${index}-value`).oninput = () => {
            const box = $(`p${index}-value`);
            if (box.value === "" || box.validity.badInput || !Number.isFinite(Number(box.value))) return;
            const [, low, high, log] = forms[$("form").value][index - 1], value = Number(box.value);
            $(`p${index}`).value = log ? Math.log10(Math.min(Math.max(value, low), high)) : Math.min(Math.max(value, low), high);
            edited();
          };
        }
        // The spring as edited: the form's two keys, with the keys the token held beside them.
        function editedSpring(withoutKept) {
          const spring = {};
          forms[shownForm].forEach(([key], index) => { spring[key] = Number($(`p${index + 1}-value`).value); });
          return withoutKept ? spring : Object.assign(spring, kept);
        }
        async function edited() {
          const spring = editedSpring();
          if (Object.values(spring).some((x) => !Number.isFinite(x))) return;
          const times = Array.from({length: 121}, (_, i) => i / 80);
          const sampled = await rpc("plan.sample", {plan: Object.assign({type: "Spring", property: "x", from: [0], to: [1]}, spring), times});
          const canvas = $("curve"), g = canvas.getContext("2d"), w = canvas.width, h = canvas.height;
          g.clearRect(0, 0, w, h);
          const y = (v) => h - 20 - v * (h - 60);
          g.strokeStyle = "#333"; g.beginPath(); g.moveTo(0, y(1)); g.lineTo(w, y(1)); g.moveTo(0, y(0)); g.lineTo(w, y(0)); g.stroke();
          g.strokeStyle = "#a3be8c"; g.lineWidth = 2; g.beginPath();
          sampled.samples.forEach((s, i) => { const x = s.t / 1.5 * w; i ? g.lineTo(x, y(s.value[0])) : g.moveTo(x, y(s.value[0])); });
          g.stroke();
          g.fillStyle = "#aaa"; g.font = "11px monospace";
          g.fillText(`settles ${sampled.settlingDuration === null ? "> 600" : sampled.settlingDuration.toFixed(3)} s`, 4, 12);
          exportTokens();
        }
        // The export pane: the spring and the timing being edited, in the chosen program's terms, with what
        // those terms cannot say.
        async function exportTokens() {
          const tokens = {name: "inspector", springs: {[$("token").value]: editedSpring()}};
          const timingName = $("timing-token").value, timing = typeof currentTiming === "function" ? currentTiming() : null;
          if (timingName && timing !== null && timing !== undefined) tokens.timings = {[timingName]: timing};
          const exported = await rpc("inspector.export", {to: $("dialect").value, tokens});
          $("export").textContent = exported.text + (exported.unsaid.length ? "\n/* not said: " + exported.unsaid.join("; ") + " */\n" : "");
        }
        $("token").onchange = showToken;
        $("dialect").onchange = edited;
        // theme.set replaces the whole overlay: every token of it is sent again, of every kind, with its name.
        async function applyToken(kind, name, value, report) {
          const overlay = {name: theme.user || "inspector"};
          for (const k of ["springs", "timings", "durations", "motions"]) {
            overlay[k] = {};
            for (const [n, token] of Object.entries(theme.tokens[k] || {})) if (token.origin === "user") overlay[k][n] = token.value;
          }
          overlay[kind][name] = value;
          try {
            const reply = await rpc("theme.set", {scope: "user", theme: overlay});
            report.textContent = `applied: ${reply.changed.join(", ") || "no change"}`;
            await loadTokens();
          } catch (error) { report.textContent = `${error.code}: ${error.message}`; }
        }
        $("apply").onclick = () => applyToken("springs", $("token").value, editedSpring(), $("applied"));
        """#
}
