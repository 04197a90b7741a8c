/* playground explorer: the Python source beside any compiled stage, one colour per Python line.
 *
 * One script for the served page (mode "server": it asks the local app to compile), the static
 * export and a notebook cell (mode "static": the data is embedded). A kernel's source and IR are
 * data here, never markup: text goes in with textContent, or, for the long stage panes (drawn as
 * one HTML string, several times faster than a node per token), through esc() first.
 */
var PlaygroundExplorer = (function () {
  "use strict";
  var COLORS = 12, DEBOUNCE_MS = 450;

  function el(tag, props, children) {
    var node = document.createElement(tag);
    Object.keys(props || {}).forEach(function (key) {
      var value = props[key];
      if (key === "text") node.textContent = value;
      else if (key === "cls") node.className = value;
      else if (key === "data") Object.keys(value).forEach(function (k) { node.dataset[k] = value[k]; });
      else if (key.slice(0, 2) === "on") node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value);
    });
    (children || []).forEach(function (child) { if (child) node.appendChild(child); });
    return node;
  }

  var ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"};
  function esc(text) {
    return String(text).replace(/[&<>"']/g, function (c) { return ESCAPES[c]; });
  }

  function option(value, label, selected) {
    var o = el("option", {value: value, text: label || value});
    if (selected) o.selected = true;
    return o;
  }

  function Explorer(root, config) {
    this.root = root;
    this.mode = config.mode;
    this.token = config.token || "";
    this.data = config.data || null;
    this.stageMenu = config.stages;      // view.stage_menu(): first panes per backend, the stages diff compares
    this.state = null;
    this.seq = 0;
    this.selected = null;
    this.stats = {compiles: 0};
    this.editAt = null;
    this.timer = null;
  }

  Explorer.prototype.api = function (path, body) {
    var options = {headers: {"X-Playground-Token": this.token}};
    if (body !== undefined) {
      options.method = "POST";
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(body);
    }
    return fetch(path, options).then(function (r) {
      return r.json().then(function (data) { data.httpStatus = r.status; return data; });
    });
  };

  Explorer.prototype.start = function () {
    var self = this;
    this.build();
    if (this.mode === "static") {
      this.root.classList.add(document.body.classList.contains("pg-body") ? "page" : "embedded");
      this.setSource(this.data.source, false);
      this.render(this.data);
      this.status("static page: " + this.data.kernel + " on " + this.data.target + " (no server)");
      return;
    }
    this.api("/api/state").then(function (state) { self.opened(state); });
  };

  Explorer.prototype.opened = function (state) {
    this.state = state;
    this.title.firstChild.textContent = state.kernel;
    this.titleFile.textContent = state.file + (state.editable ? "" : " (read-only)");
    this.fillTargets(state.targets, state.target);
    this.saveButton.style.display = state.editable ? "" : "none";
    this.setSource(state.source, state.editable);
    this.tabs.launches.style.display = state.trace ? "" : "none";
    if (state.trace) this.renderLaunches(state.trace);
    this.compile();
  };

  // ---- layout ------------------------------------------------------------------------------
  Explorer.prototype.build = function () {
    var self = this, server = this.mode === "server";
    this.title = el("span", {cls: "title", text: this.data ? this.data.kernel : "playground"});
    this.titleFile = el("small", {text: this.data ? this.data.file : ""});
    this.title.appendChild(this.titleFile);
    this.tabs = {};
    var tabBar = el("span", {cls: "tabs"});
    [["explore", "Explore"], ["compare", "Compare"], ["passes", "Passes"], ["launches", "Launches"]].forEach(function (t) {
      var b = el("button", {text: t[1], data: {tab: t[0]}, onclick: function () { self.showTab(t[0]); }});
      if (!server && t[0] !== "explore") b.style.display = "none";
      self.tabs[t[0]] = b;
      tabBar.appendChild(b);
    });
    this.statusLine = el("span", {cls: "status", role: "status"});
    var top = el("div", {cls: "row"}, [this.title, tabBar, this.statusLine]);
    this.controls = this.makeControls("");
    this.saveButton = el("button", {cls: "act", text: "Save to file", title: "write the editor's text to your file",
                                    onclick: function () { self.save(); }});
    this.controls.row.appendChild(this.saveButton);
    if (!server) this.controls.row.style.display = "none";
    this.chips = el("div", {cls: "chips"});
    this.headerLines = el("pre", {cls: "header-lines"});
    var more = el("button", {cls: "act", text: "header", title: "the compile header, as `compile` prints it",
                             onclick: function () { self.headerLines.classList.toggle("shown"); }});
    this.controlButton = el("button", {cls: "act", text: "control codes",
      title: "SASS: each instruction's stall cycles, yield hint, scoreboards set (W, R) and waited on (B), operand reuse",
      onclick: function () { self.root.classList.toggle("show-control"); }});
    this.chips.appendChild(more);
    this.chips.appendChild(this.controlButton);
    var header = el("header", {}, [top, this.controls.row, this.chips, this.headerLines]);

    // Explore: the source and stage panes
    this.textarea = el("textarea", {spellcheck: "false", autocomplete: "off", wrap: "off", "aria-label": "Python source"});
    this.sourceLines = el("pre", {cls: "code"});
    this.editor = el("div", {cls: "editor"}, [this.sourceLines, this.textarea]);
    this.sourceScroll = el("div", {cls: "scroll"}, [this.editor]);
    this.errorBox = el("div", {cls: "error", role: "alert"});
    this.sourceHead = el("span", {cls: "grow", text: "Python"});
    var addPane = el("button", {cls: "act", text: "+ pane", title: "another stage beside these",
                                onclick: function () { self.morePanes(1); }});
    var dropPane = el("button", {cls: "act", text: "\u2212 pane", title: "one stage pane fewer (two at least)",
                                 onclick: function () { self.morePanes(-1); }});
    var sourcePane = el("section", {cls: "pane source", data: {pane: "source"}},
                        [el("div", {cls: "pane-head"}, [this.sourceHead, addPane, dropPane]), this.sourceScroll,
                         this.errorBox]);
    this.panesBox = el("div", {cls: "panes"}, [sourcePane]);
    this.stagePanes = [];
    var first = this.data ? this.firstStages(this.data.backend) : [];
    this.addPane(first[0] || "ptx");
    this.addPane(first[1] || "sass");
    this.views = {explore: this.panesBox, compare: this.buildCompare(), passes: this.buildPasses(),
                  launches: this.buildLaunches()};
    this.root.appendChild(header);
    Object.keys(this.views).forEach(function (k) { self.root.appendChild(self.views[k]); });
    this.showTab("explore");
    this.wireEditor();
  };

  /* Which stage each pane shows for a target: the one the learner picked while the target has it;
     otherwise the backend's usual pair first (PTX and SASS, or TTGIR and AMDGCN), then the rest. */
  Explorer.prototype.assignStages = function (backend, offered) {
    var taken = [], has = function (s) { return offered.indexOf(s) >= 0; };
    this.stagePanes.forEach(function (pane) {
      pane.stage = pane.chosen && has(pane.chosen) && taken.indexOf(pane.chosen) < 0 ? pane.chosen : null;
      if (pane.stage) taken.push(pane.stage);
    });
    var order = this.firstStages(backend).concat(offered).filter(has);
    this.stagePanes.forEach(function (pane) {
      if (pane.stage) return;
      pane.stage = order.filter(function (s) { return taken.indexOf(s) < 0; })[0] || offered[0];
      taken.push(pane.stage);
    });
  };

  Explorer.prototype.firstStages = function (backend) {
    return this.stageMenu.first[backend] || [];
  };

  Explorer.prototype.makeControls = function (suffix) {
    var self = this, c = {};
    c.target = el("select", {name: "target" + suffix, "aria-label": "target"});
    c.num_warps = el("input", {cls: "num", name: "num_warps" + suffix, title: "num_warps", inputmode: "numeric"});
    c.num_stages = el("input", {cls: "num", name: "num_stages" + suffix, title: "num_stages", inputmode: "numeric"});
    c.meta = el("input", {cls: "wide", name: "meta" + suffix, title: "meta-parameters: K=V,K=V"});
    c.shape = el("input", {cls: "wide", name: "shape" + suffix, title: "dimensions: M=4096,N=..."});
    c.dtype = el("select", {name: "dtype" + suffix, "aria-label": "dtype"});
    var again = function () { if (suffix) self.compare(); else self.compile(); };
    [c.target, c.dtype].forEach(function (x) { x.addEventListener("change", again); });
    [c.num_warps, c.num_stages, c.meta, c.shape].forEach(function (x) {
      x.addEventListener("change", again);
      x.addEventListener("keydown", function (e) { if (e.key === "Enter") again(); });
    });
    c.row = el("div", {cls: "row"}, [
      el("label", {text: "target"}), c.target, el("label", {text: "num_warps"}), c.num_warps,
      el("label", {text: "num_stages"}), c.num_stages, el("label", {text: "meta"}), c.meta,
      el("label", {text: "shape"}), c.shape, el("label", {text: "dtype"}), c.dtype]);
    return c;
  };

  Explorer.prototype.fillTargets = function (targets, chosen) {
    [this.controls.target, this.compareControls.target].forEach(function (select, i) {
      select.textContent = "";
      targets.forEach(function (t) { select.appendChild(option(t, t, t === chosen)); });
    });
  };

  Explorer.prototype.settings = function (c) {
    c = c || this.controls;
    var s = {target: c.target.value, num_warps: c.num_warps.value, num_stages: c.num_stages.value,
             meta: c.meta.value, shape: c.shape.value, dtype: c.dtype.value};
    if (this.state && this.state.editable && this.textarea.value !== this.state.source) s.source = this.textarea.value;
    return s;
  };

  Explorer.prototype.addPane = function (stage) {
    var self = this, pane = {stage: stage};
    pane.select = el("select", {"aria-label": "stage", onchange: function () {
      pane.stage = pane.chosen = pane.select.value;      // the learner's choice: kept while the target has it
      if (self.mode === "static") {
        self.renderPane(pane);
        if (self.selected) self.select(self.selected, true);
      } else {
        self.compile();
      }
    }});
    pane.code = el("pre", {cls: "code"});
    pane.scroll = el("div", {cls: "scroll"}, [pane.code]);
    pane.node = el("section", {cls: "pane stage"}, [el("div", {cls: "pane-head"}, [pane.select]), pane.scroll]);
    pane.byPy = {};
    this.stagePanes.push(pane);
    this.panesBox.appendChild(pane.node);
    return pane;
  };

  /* One stage pane more (the first stage not shown yet) or fewer; two at least, five at most. */
  Explorer.prototype.morePanes = function (delta) {
    if (delta > 0 && this.stagePanes.length < 5 && this.data) {
      var shown = this.stagePanes.map(function (p) { return p.stage; });
      var offered = this.data.available_stages.filter(function (s) { return shown.indexOf(s) < 0; });
      if (!offered.length) return;
      this.addPane(offered[0]).chosen = offered[0];
    } else if (delta < 0 && this.stagePanes.length > 2) {
      this.stagePanes.pop().node.remove();
    } else {
      return;
    }
    if (this.mode === "static") this.render(this.data); else this.compile();
  };

  Explorer.prototype.showTab = function (name) {
    var self = this;
    Object.keys(this.views).forEach(function (k) {
      self.views[k].style.display = k === name ? "" : "none";
      self.tabs[k].classList.toggle("on", k === name);
    });
    this.tab = name;
    if (name === "compare" && !this.compared) this.compare();
    if (name === "passes" && !this.passList) this.loadPasses();
  };

  Explorer.prototype.status = function (text, bad) {
    this.statusLine.textContent = text;
    this.statusLine.classList.toggle("bad", !!bad);
  };

  // ---- the source pane -------------------------------------------------------------------------
  Explorer.prototype.setSource = function (text, editable) {
    this.textarea.value = text;
    this.textarea.readOnly = !editable;
    this.sourceHead.textContent = editable ? "Python: edits compile from a scratch copy; Save writes your file"
                                           : "Python (read-only)";
    this.sizeEditor();
    this.paintSource();
  };

  Explorer.prototype.sizeEditor = function () {
    var lines = this.textarea.value.split("\n");
    var widest = lines.reduce(function (m, l) { return Math.max(m, l.length); }, 0);
    this.textarea.rows = lines.length;
    this.textarea.style.height = (lines.length * this.lineHeight()) + "px";
    this.textarea.style.width = "calc(" + (widest + 2) + "ch + 64px)";
  };

  Explorer.prototype.lineHeight = function () {
    return parseFloat(getComputedStyle(this.root).getPropertyValue("--line")) || 18;
  };

  Explorer.prototype.paintSource = function () {
    var colors = (this.data && this.data.colors) || {}, count = this.textarea.value.split("\n").length;
    var frag = document.createDocumentFragment();
    this.sourceByLine = {};
    for (var n = 1; n <= count; n++) {
      var live = this.data && this.data.live && this.data.live[n];
      var line = el("div", {cls: "line", data: {py: n}}, [el("span", {cls: "ln", text: String(n)}), el("span", {text: " "}),
        live ? el("span", {cls: "live", text: live[0] + " \u00b7 " + live[1],
                           title: "live registers: peak " + live[0] + ", " + live[1] + " at its last instruction"}) : null]);
      if (colors[n] !== undefined) line.classList.add("c" + (colors[n] % COLORS));
      this.sourceByLine[n] = line;
      frag.appendChild(line);
    }
    this.sourceLines.textContent = "";
    this.sourceLines.appendChild(frag);
    if (this.errorAt) this.markError(this.errorAt);
    if (this.selected) this.select(this.selected, false);
  };

  Explorer.prototype.lineAtCaret = function () {
    return this.textarea.value.slice(0, this.textarea.selectionStart).split("\n").length;
  };

  Explorer.prototype.wireEditor = function () {
    var self = this, lastHover = null;
    this.textarea.addEventListener("input", function () {
      self.editAt = performance.now();
      self.sizeEditor();
      self.paintSource();
      self.root.classList.add("stale");
      clearTimeout(self.timer);
      self.timer = setTimeout(function () { self.compile(); }, DEBOUNCE_MS);
    });
    this.textarea.addEventListener("click", function () { self.select(self.lineAtCaret(), true); });
    this.textarea.addEventListener("keyup", function (e) {
      if (e.key.indexOf("Arrow") === 0 || e.key === "PageUp" || e.key === "PageDown") self.select(self.lineAtCaret(), true);
    });
    this.textarea.addEventListener("keydown", function (e) {
      if (e.key === "Tab" && !self.textarea.readOnly) {
        e.preventDefault();
        document.execCommand("insertText", false, "    ");
      }
    });
    this.textarea.addEventListener("mousemove", function (e) {
      var line = Math.floor(e.offsetY / self.lineHeight()) + 1;
      if (line !== lastHover) { lastHover = line; self.hover(line); }
    });
    this.textarea.addEventListener("mouseleave", function () { lastHover = null; self.hover(null); });
  };

  // ---- linking ---------------------------------------------------------------------------------
  Explorer.prototype.hover = function (py) {
    this.root.querySelectorAll(".line.hover").forEach(function (n) { n.classList.remove("hover"); });
    if (py === null) return;
    if (this.sourceByLine[py]) this.sourceByLine[py].classList.add("hover");
    this.stagePanes.forEach(function (pane) {
      var lines = pane.byPy[py] || [];
      lines.forEach(function (n) { n.classList.add("hover"); });
      if (lines.length) scrollTo(pane.scroll, lines[0]);
    });
  };

  /* Select a Python line: it and every stage line it produced are outlined, and each pane scrolls to them. */
  Explorer.prototype.select = function (py, scroll, clicked) {
    this.selected = py;
    this.root.querySelectorAll(".line.sel").forEach(function (n) { n.classList.remove("sel"); });
    var src = this.sourceByLine && this.sourceByLine[py];
    if (src) src.classList.add("sel");
    var found = 0;
    var panes = this.stagePanes.concat(this.comparePanes || []);
    panes.forEach(function (pane) {
      var lines = pane.byPy[py] || [];
      lines.forEach(function (n) { n.classList.add("sel"); });
      found += lines.length;
      if (scroll && lines.length && pane !== clicked) scrollTo(pane.scroll, lines[0]);
    });
    if (scroll === "source" && src) scrollTo(this.sourceScroll, src);
    this.root.dataset.selected = py;
    return found;
  };

  function scrollTo(box, node) {
    box.scrollTop = Math.max(0, node.offsetTop - box.clientHeight / 3);
  }

  // ---- stage panes -----------------------------------------------------------------------------
  Explorer.prototype.render = function (data) {
    var self = this, previous = this.data;
    Object.keys(data.stages).forEach(function (s) {      // "same as you have": the server sent no lines
      if (data.stages[s].same && previous && previous.stages[s]) data.stages[s] = previous.stages[s];
    });
    this.data = data;
    this.root.classList.remove("stale");
    this.renderChips(data.figures);
    this.headerLines.textContent = data.header.join("\n");
    this.title.firstChild.textContent = data.kernel;
    this.titleFile.textContent = data.file;
    if (this.mode === "server") this.fillControls(data);
    var offered = this.mode === "static" ? data.available_stages.filter(function (s) { return data.stages[s]; })
                                         : data.available_stages;
    this.assignStages(data.backend, offered);
    this.stagePanes.forEach(function (pane) {
      pane.select.textContent = "";
      offered.forEach(function (s) { pane.select.appendChild(option(s, s.toUpperCase(), s === pane.stage)); });
      self.renderPane(pane);
    });
    this.paintSource();
  };

  Explorer.prototype.renderChips = function (figures) {
    var self = this;
    this.chips.querySelectorAll(".chip").forEach(function (n) { n.remove(); });
    var old = {};
    (this.lastFigures || []).forEach(function (f) { old[f.name] = f.value; });
    figures.forEach(function (f) {
      var chip = el("span", {cls: "chip", title: f.title, data: {figure: f.name}}, [el("b", {text: f.name}), el("span", {text: f.value})]);
      if (old[f.name] !== undefined && old[f.name] !== f.value) {
        chip.classList.add("changed");
        chip.title = "was " + old[f.name] + "; " + f.title;
      }
      self.chips.insertBefore(chip, self.chips.lastChild);
    });
    this.lastFigures = figures;
  };

  Explorer.prototype.fillControls = function (data) {
    var c = this.controls, cfg = data.config;
    c.num_warps.placeholder = cfg.num_warps;
    c.num_stages.placeholder = cfg.num_stages;
    c.meta.placeholder = Object.keys(cfg.meta).map(function (k) { return k + "=" + cfg.meta[k]; }).join(",");
    c.shape.placeholder = Object.keys(cfg.shape).map(function (k) { return k + "=" + cfg.shape[k]; }).join(",");
    var chosen = c.dtype.value || cfg.dtype;
    c.dtype.textContent = "";
    data.dtypes.forEach(function (d) { c.dtype.appendChild(option(d, d, d === chosen)); });
    this.compareControls.dtype.textContent = "";
    data.dtypes.forEach(function (d) { this.compareControls.dtype.appendChild(option(d, d, d === chosen)); }, this);
  };

  Explorer.prototype.renderPane = function (pane) {
    var stage = this.data.stages[pane.stage];
    if (stage && stage.digest === pane.digest && pane.drawnStage === pane.stage) return;   // the same lines
    pane.code.textContent = "";
    pane.byPy = {};
    pane.digest = null;
    if (!stage) return;
    fillLines(pane, stage, this.data.colors, this);
    pane.digest = stage.digest;
    pane.drawnStage = pane.stage;
    pane.node.dataset.stage = pane.stage;
  };

  /* The hover of one stage line: its control codes and live registers (SASS), and what its opcode does. */
  function lineNote(stage, i) {
    var parts = [];
    if (stage.control && stage.control[i]) parts.push("control " + stage.control[i]);
    if (stage.live && stage.live[i] !== null && stage.live[i] !== undefined) parts.push(stage.live[i] + " registers live");
    var op = stage.ops && stage.ops[i];
    if (op && stage.explained[op]) parts.push(op + ": " + stage.explained[op]);
    return parts.join("\n");
  }

  function fillLines(pane, stage, colors, explorer) {
    var html = [];
    stage.lines.forEach(function (tokens, i) {
      var py = stage.map[i], mapped = py !== null && py !== undefined;
      var color = !mapped ? "" : " c" + ((colors && colors[py] !== undefined ? colors[py] : py) % COLORS);
      var note = lineNote(stage, i);
      html.push('<div class="line' + color + '"' + (mapped ? ' data-py="' + (+py) + '"' : "") +
                (note ? ' title="' + esc(note) + '"' : "") + '><span class="ln">' + (i + 1) + '</span>' +
                (stage.control && stage.control[i] ? '<span class="cc">[' + esc(stage.control[i]) + ']</span>' : "") +
                '<span class="tok">');
      tokens.forEach(function (t) {
        html.push(t[0] ? '<span class="' + esc(t[0]) + '">' + esc(t[1]) + "</span>" : esc(t[1]));
      });
      html.push("</span></div>");
    });
    pane.code.innerHTML = html.join("");
    pane.byPy = {};
    pane.code.querySelectorAll(".line[data-py]").forEach(function (line) {
      (pane.byPy[line.dataset.py] = pane.byPy[line.dataset.py] || []).push(line);
    });
    if (!pane.clicks) {        // one listener per pane: a click on a line goes back to its Python line
      pane.clicks = true;
      pane.code.addEventListener("click", function (e) {
        var line = e.target.closest(".line[data-py]");
        if (!line) return;
        var py = +line.dataset.py;
        if (explorer.tab === "explore") explorer.textareaToLine(py);
        explorer.select(py, "source", pane);
      });
    }
  }

  Explorer.prototype.textareaToLine = function (py) {
    var lines = this.textarea.value.split("\n"), offset = 0;
    for (var i = 0; i < py - 1 && i < lines.length; i++) offset += lines[i].length + 1;
    this.textarea.setSelectionRange(offset, offset);
  };

  // ---- talking to the server -------------------------------------------------------------------
  Explorer.prototype.compile = function () {
    var self = this, seq = ++this.seq, started = performance.now();
    var settings = this.settings();
    var backends = (this.state && this.state.backends) || {};
    var backend = backends[settings.target] || (/^gfx/.test(settings.target) ? "hip" : "cuda");
    if (this.state && this.state.stages) this.assignStages(backend, this.state.stages[backend]);
    settings.stages = this.stagePanes.map(function (p) { return p.stage; });
    settings.have = {};
    this.stagePanes.forEach(function (p) { if (p.digest) settings.have[p.drawnStage] = p.digest; });
    this.status("compiling…");
    return this.api("/api/compile", settings).then(function (data) {
      if (seq !== self.seq) return;              // a newer edit's answer is on its way
      self.stats.compiles += 1;
      self.stats.lastRequestMs = performance.now() - started;
      if (data.error) { self.showError(data.error, data.line); return; }
      self.clearError();
      var drawn = performance.now();
      self.render(data);
      self.stats.lastDrawMs = performance.now() - drawn;
      var header = data.header.filter(function (l) { return l.indexOf("compile ") === 0; })[0] || "";
      self.status(data.kernel + " on " + data.target + ": " + header.replace(/^compile\s+/, ""));
      if (self.editAt !== null) {            // measured once the browser has laid the panes out
        var editAt = self.editAt;
        self.editAt = null;
        self.root.offsetHeight;
        self.stats.lastEditToUpdateMs = performance.now() - editAt;
      }
      self.passList = null;
      self.compared = false;
      if (self.tab === "passes") self.loadPasses();
      if (self.tab === "compare") self.compare();
      self.root.dataset.compiles = self.stats.compiles;
    }, function (e) { self.status("the server did not answer: " + e, true); });
  };

  Explorer.prototype.showError = function (message, line) {
    this.errorBox.textContent = (line ? "line " + line + ": " : "") + message;
    this.errorBox.classList.add("shown");
    this.errorAt = line || null;
    this.root.classList.add("stale");
    this.paintSource();
    if (line && this.sourceByLine[line]) scrollTo(this.sourceScroll, this.sourceByLine[line]);
    this.status("compile failed" + (line ? " at line " + line : ""), true);
    this.root.dataset.error = line || "yes";
  };

  Explorer.prototype.markError = function (line) {
    if (this.sourceByLine[line]) this.sourceByLine[line].classList.add("errline");
  };

  Explorer.prototype.clearError = function () {
    this.errorBox.textContent = "";
    this.errorBox.classList.remove("shown");
    this.errorAt = null;
    delete this.root.dataset.error;
  };

  Explorer.prototype.save = function () {
    var self = this;
    this.api("/api/save", {source: this.textarea.value}).then(function (r) {
      if (r.error) { self.status("not saved: " + r.error, true); return; }
      self.state.source = self.textarea.value;
      self.status("saved " + r.saved);
    });
  };

  // ---- compare two variants --------------------------------------------------------------------
  Explorer.prototype.buildCompare = function () {
    var self = this;
    this.compareControls = this.makeControls("_b");
    this.compareStage = el("select", {"aria-label": "compared stage", onchange: function () { self.compare(); }});
    this.stageMenu.diffable.forEach(function (s) { self.compareStage.appendChild(option(s, s.toUpperCase())); });
    this.compareTable = el("table", {cls: "list"});
    this.comparePanes = [0, 1].map(function (i) {
      var pane = {byPy: {}, code: el("pre", {cls: "code"})};
      pane.title = el("span", {text: i ? "B" : "A"});
      pane.scroll = el("div", {cls: "scroll"}, [pane.code]);
      pane.node = el("section", {cls: "pane"}, [el("div", {cls: "pane-head"}, [pane.title]), pane.scroll]);
      return pane;
    });
    var intro = el("div", {cls: "row"}, [el("label", {text: "A is the Explore tab's settings; B:"})]);
    var figures = el("section", {cls: "pane", style: "flex: 0 0 300px"}, [
      el("div", {cls: "pane-head"}, [el("span", {text: "figures, A → B"}), this.compareStage]),
      el("div", {cls: "scroll"}, [this.compareTable])]);
    return el("div", {}, [intro, this.compareControls.row,
                          el("div", {cls: "panes"}, [figures, this.comparePanes[0].node, this.comparePanes[1].node])]);
  };

  Explorer.prototype.compare = function () {
    var self = this;
    this.compared = true;
    var a = this.settings(), b = this.settings(this.compareControls);
    b.source = a.source;
    ["num_warps", "num_stages", "meta", "shape"].forEach(function (k) { if (!b[k]) b[k] = a[k]; });
    this.status("comparing…");
    this.api("/api/diff", {a: a, b: b, stage: this.compareStage.value}).then(function (r) {
      if (r.error) { self.status(r.error, true); return; }
      self.compareTable.textContent = "";
      self.compareTable.appendChild(el("tr", {}, [el("th", {text: "figure"}), el("th", {text: "A"}), el("th", {text: "B"})]));
      r.figures.forEach(function (f) {
        var row = el("tr", {cls: f.changed ? "" : "quiet", data: {figure: f.name}},
                     [el("td", {text: f.name}), el("td", {text: f.a}), el("td", {text: f.b})]);
        if (f.changed) row.style.background = "#fff4d6";
        self.compareTable.appendChild(row);
      });
      [r.a, r.b].forEach(function (side, i) {
        var pane = self.comparePanes[i];
        pane.title.textContent = (i ? "B: " : "A: ") + side.target + " " + side.stage.toUpperCase();
        pane.code.textContent = "";
        pane.byPy = {};
        fillLines(pane, side.lines, self.data && self.data.colors, self);
      });
      self.status("A " + r.a.target + " vs B " + r.b.target + ": " + r.figures.filter(function (f) { return f.changed; }).length + " figures differ");
    });
  };

  // ---- pass by pass ----------------------------------------------------------------------------
  Explorer.prototype.buildPasses = function () {
    var self = this;
    this.passTable = el("table", {cls: "list"});
    this.passDiff = el("pre", {cls: "code"});
    this.findInput = el("input", {cls: "wide", placeholder: "find: a pattern, e.g. ttng.warp_group_dot",
                                  onkeydown: function (e) { if (e.key === "Enter") self.loadPasses(null, self.findInput.value); }});
    this.findResult = el("span", {});
    var list = el("section", {cls: "pane", style: "flex: 0 0 44%"}, [
      el("div", {cls: "pane-head"}, [this.findInput, this.findResult]), el("div", {cls: "scroll"}, [this.passTable])]);
    var diff = el("section", {cls: "pane"}, [el("div", {cls: "pane-head"}, [el("span", {text: "the IR diff one pass made (locations dropped, value numbers as #)"})]),
                                              el("div", {cls: "scroll"}, [this.passDiff])]);
    return el("div", {cls: "panes"}, [list, diff]);
  };

  Explorer.prototype.loadPasses = function (number, find) {
    var self = this;
    this.status("compiling with IR printing on…");
    return this.api("/api/passes", {settings: this.settings(), number: number, find: find}).then(function (r) {
      if (r.error) { self.status(r.error, true); return; }
      self.passList = r.passes;
      self.passTable.textContent = "";
      self.passTable.appendChild(el("tr", {}, ["#", "pipeline", "pass", "+", "-"].map(function (h) { return el("th", {text: h}); })));
      var mark = r.found ? r.found.number : (r.shown ? r.shown.number : null);
      r.passes.forEach(function (p) {
        var changed = p.added || p.removed;
        var row = el("tr", {cls: "pick" + (changed ? "" : " quiet") + (p.number === mark ? " on" : ""), data: {pass: p.number},
                            title: p.name + (p.options ? " {" + p.options + "}" : ""),
                            onclick: function () { self.loadPasses(p.number); }},
                     [el("td", {text: String(p.number)}), el("td", {text: p.pipeline}), el("td", {text: p.argument}),
                      el("td", {cls: changed ? "add" : "", text: changed ? "+" + p.added : ""}),
                      el("td", {cls: changed ? "del" : "", text: changed ? "-" + p.removed : ""})]);
        self.passTable.appendChild(row);
      });
      if (r.found) {
        self.findResult.textContent = r.found.number ? "first after pass " + r.found.number + ", " + r.found.argument
          : (r.found.lines.length ? "already in the frontend's TTIR" : "no pass introduces it");
        if (r.found.number) self.loadPasses(r.found.number);
      }
      if (r.shown) self.showPassDiff(r.shown.diff);
      self.status(r.passes.length + " MLIR passes for " + r.kernel + " on " + r.target);
    });
  };

  Explorer.prototype.showPassDiff = function (diff) {
    var frag = document.createDocumentFragment();
    diff.split("\n").forEach(function (line) {
      var cls = line[0] === "+" ? "add" : line[0] === "-" ? "del" : line.slice(0, 2) === "@@" ? "hunk" : "";
      frag.appendChild(el("div", {cls: "line " + cls, text: line || " "}));
    });
    this.passDiff.textContent = "";
    this.passDiff.appendChild(frag);
  };

  // ---- a trace's launches ----------------------------------------------------------------------
  Explorer.prototype.buildLaunches = function () {
    this.launchTable = el("table", {cls: "list"});
    this.variantTable = el("table", {cls: "list"});
    this.launchHead = el("span", {text: "every launch, in order: click one to open its compiled variant in Explore"});
    return el("div", {cls: "panes"}, [
      el("section", {cls: "pane"}, [el("div", {cls: "pane-head"}, [this.launchHead]),
                                    el("div", {cls: "scroll"}, [this.launchTable])]),
      el("section", {cls: "pane"}, [el("div", {cls: "pane-head"}, [el("span", {text: "the distinct binaries the JIT compiled (variants)"})]),
                                    el("div", {cls: "scroll"}, [this.variantTable])])]);
  };

  function table(node, head, rows) {
    node.textContent = "";
    node.appendChild(el("tr", {}, head.map(function (h) { return el("th", {text: h}); })));
    rows.forEach(function (r) { node.appendChild(r); });
  }

  function cells(values) {
    return values.map(function (x) { return el("td", {text: x === null || x === undefined ? "" : String(x)}); });
  }

  Explorer.prototype.renderLaunches = function (trace) {
    var self = this;
    var open = function (ref) { return function () { if (ref) self.openRef(ref); }; };
    this.launchHead.textContent = trace.total_launches + " launches" +
      (trace.launches.length < trace.total_launches ? " (the first " + trace.launches.length + " shown)" : "") +
      ": click one to open its compiled variant in Explore";
    table(this.launchTable, ["#", "kernel", "site", "grid", "variant", "compile", "\u00b5s (modelled)"],
      trace.launches.map(function (l) {
        return el("tr", {cls: l.ref ? "pick" : "quiet", data: {launch: l.index}, onclick: open(l.ref)},
                  cells([l.index, l.kernel, l.site, l.grid, l.variant, l.compile, l.modelled_us]));
      }));
    table(this.variantTable, ["#", "kernel", "where", "launches", "warps", "stages", "registers", "occupancy", "specialised"],
      trace.variants.map(function (v) {
        return el("tr", {cls: v.ref ? "pick" : "quiet", data: {variant: v.id}, title: v.note || (v.ref || ""), onclick: open(v.ref)},
                  cells([v.id, v.kernel, v.where, v.launches, v.num_warps, v.num_stages, v.registers,
                         v.occupancy === null || v.occupancy === undefined ? "" : Math.round(v.occupancy * 1000) / 10 + "%",
                         (v.specialised || []).join("; ")]));
      }));
  };

  Explorer.prototype.openRef = function (ref) {
    var self = this;
    this.status("opening " + ref + "…");
    this.api("/api/open", {ref: ref}).then(function (state) {
      if (state.error) { self.status(state.error, true); return; }
      self.showTab("explore");
      self.opened(state);
    });
  };

  function mount(root, config) {
    var explorer = new Explorer(root, config);
    root.explorer = explorer;
    explorer.start();
    return explorer;
  }

  return {mount: mount};
})();
