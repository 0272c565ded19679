/// The page and its styles (docs/inspector.md), served from the binary; `InspectorScript` is its script.
enum InspectorPage {
    static func html(token: String) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <title>motiond inspector</title>
        <link rel="stylesheet" href="style.css?token=\(token)">
        </head>
        <body>
        <header><h1>motiond inspector</h1><span id="status">connecting…</span></header>
        <main>
          <section id="tree-pane"><h2>Runtimes</h2><div id="tree"></div></section>
          <section id="graph-pane">
            <h2 id="chosen">Choose a property</h2>
            <canvas id="value-graph" width="760" height="220"></canvas>
            <canvas id="velocity-graph" width="760" height="120"></canvas>
            <canvas id="timeline" width="760" height="60"></canvas>
            <div id="controls">
              <button id="pause">Pause</button>
              <button data-speed="1" class="speed">100 %</button>
              <button data-speed="0.25" class="speed">25 %</button>
              <button data-speed="0.1" class="speed">10 %</button>
              <button id="live">Live</button>
              <input id="scrub" type="range" min="0" max="10" step="0.001" value="0" disabled>
              <span id="offset"></span>
              <button id="download">Frames (JSON lines)</button>
            </div>
            <ol id="trace"></ol>
          </section>
          <section id="editor-pane">
            <h2>Spring editor</h2>
            <label>Token <select id="token"></select></label>
            <label>Form <select id="form"></select></label>
            <label><span id="p1-label"></span> <input id="p1" type="range" step="any"> <input id="p1-value" type="number" step="any"></label>
            <label><span id="p2-label"></span> <input id="p2" type="range" step="any"> <input id="p2-value" type="number" step="any"></label>
            <div id="kept"></div>
            <canvas id="curve" width="300" height="200"></canvas>
            <div><button id="apply">Apply to my theme</button> <span id="applied"></span></div>
            <label>Named plan <select id="named-plan"></select></label>
            <div><button id="apply-plan" disabled>Apply to the plan</button> <span id="plan-applied"></span></div>
            <h2>Curve editor</h2>
            <label>Timing token <select id="timing-token"></select></label>
            <canvas id="bezier" width="300" height="300"></canvas>
            <div><code id="bezier-text"></code></div>
            <div><button id="apply-timing">Apply to my theme</button> <span id="timing-applied"></span></div>
            <label>Named tween <select id="named-tween"></select></label>
            <div><button id="apply-tween" disabled>Apply to the tween</button> <span id="tween-applied"></span></div>
            <label>Export <select id="dialect"><option>css</option><option>niri</option><option>hyprland</option></select></label>
            <pre id="export"></pre>
          </section>
        </main>
        <script src="app.js?token=\(token)"></script>
        </body>
        </html>
        """
    }

    static let style = """
        body { font: 14px system-ui, sans-serif; margin: 0; background: #16181d; color: #e6e6e6; }
        header { display: flex; gap: 1em; align-items: baseline; padding: 0.5em 1em; background: #20232a; }
        h1 { font-size: 16px; margin: 0; } h2 { font-size: 14px; margin: 0.5em 0; }
        main { display: grid; grid-template-columns: 260px 1fr 320px; gap: 1em; padding: 1em; }
        #tree details { margin-left: 0.5em; } #tree summary { cursor: pointer; }
        .property { cursor: pointer; padding: 1px 4px; font-family: ui-monospace, monospace; font-size: 12px; }
        .property.chosen { background: #3b4252; }
        canvas { background: #0f1115; display: block; margin-bottom: 0.5em; }
        #controls { display: flex; gap: 0.4em; align-items: center; flex-wrap: wrap; }
        button { background: #2e3440; color: inherit; border: 1px solid #4c566a; padding: 3px 8px; cursor: pointer; }
        button.active { background: #5e81ac; }
        #trace { font: 12px ui-monospace, monospace; max-height: 180px; overflow: auto; }
        label { display: block; margin: 0.4em 0; } input[type=range] { width: 180px; } input[type=number] { width: 6em; }
        pre { white-space: pre-wrap; font-size: 12px; background: #0f1115; padding: 0.5em; }
        """
}
