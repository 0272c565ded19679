/// The page's named-plan target for the spring editor (docs/inspector.md): the named `Spring` plans this
/// uid's subscription saw added (the trace's `plan.named.added` carries the plan as resolved); "Apply to
/// the plan" adds it again under its name with the edited spring, without `from`, `velocity` and `delay`,
/// so the running spring changes course from where it is (docs/vocabulary.md, a spring retargeted).
/// The curve editor's named `Tween`s are learnt the same way (`InspectorCurveEditor`). Appended to
/// `InspectorScript` (one script: it uses its `rpc`, `editedSpring` and `traced`'s hook).
enum InspectorNamedPlans {
    static let text = #"""

        // Named springs seen in the trace: "runtime · target · name" -> {runtime, target, name, plan}.
        const namedPlans = new Map();
        window.inspector.namedPlans = namedPlans;
        const springForms = ["tension", "friction", "damping", "mass", "stiffness", "dampingRatio", "response",
                             "duration", "bounce", "from", "velocity", "delay"];
        // A named plan seen in the trace, kept in `plans` ("runtime · target · name" -> {runtime, target,
        // name, plan, t}); a new one is listed in the `select` and enables its `button`.
        function rememberNamed(plans, event, select, button) {
          const key = `${event.runtime} · ${event.target} · ${event.name}`;
          const fresh = !plans.has(key);
          // `running`: seconds it had run when `runtime.state` told of it (a plan added before the page opened).
          plans.set(key, {runtime: event.runtime, target: event.target, name: event.name, plan: event.plan, t: event.t,
                          running: event.running, seenLocal: event.seenLocal});
          if (!fresh) return;
          const option = document.createElement("option"); option.textContent = key; $(select).appendChild(option);
          $(button).disabled = false;
        }
        function namedPlanSeen(event) {
          if (event.kind !== "plan.named.added" || !event.plan) return;
          if (event.plan.type === "Tween") return rememberNamed(namedTweens, event, "named-tween", "apply-tween");
          if (event.plan.type === "Spring") rememberNamed(namedPlans, event, "named-plan", "apply-plan");
        }
        $("apply-plan").onclick = async () => {
          const chosen = namedPlans.get($("named-plan").value);
          if (!chosen) return;
          const plan = Object.assign({}, chosen.plan);
          for (const key of springForms) delete plan[key];
          Object.assign(plan, editedSpring());
          try {
            await rpc("plan.add", {runtime: chosen.runtime, target: chosen.target, name: chosen.name, plan});
            $("plan-applied").textContent = `applied to ${chosen.name}`;
          } catch (error) { $("plan-applied").textContent = `${error.code}: ${error.message}`; }
        };
        """#
}
