// warden audit report: renders the JSON embedded above with DOM APIs only. Every value from
// the log is set with textContent, never parsed as markup, so an agent-written string stays text.
// A value the log holds (an agent id, a session id, a path, an approval reference) is never the
// key of a plain object, which would find `constructor` or `toString` there before it was set and
// cannot hold `__proto__`: every map keyed by such text is a `Map`.
"use strict";
(function () {
  var started = performance.now();
  var status = document.getElementById("report-status");
  var errors = document.getElementById("report-errors");
  function fail(message) {
    errors.hidden = false;
    errors.textContent += String(message) + "\n";
    status.dataset.state = "error";
  }
  window.addEventListener("error", function (e) { fail("error: " + e.message + " at " + e.lineno); });

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (key) {
        if (key === "text") node.textContent = attrs.text;
        else if (key === "cls") node.className = attrs.cls;
        else node.setAttribute(key, attrs[key]);
      });
    }
    (children || []).forEach(function (child) {
      if (child === null || child === undefined) return;
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    });
    return node;
  }
  function badge(verdict) {
    var name = verdict || "none";
    return el("span", { cls: "badge " + name, text: verdict || "—" });
  }

  var data;
  try {
    data = JSON.parse(document.getElementById("report-data").textContent);
  } catch (e) {
    fail("the report's data cannot be read: " + e.message);
    return;
  }
  var root = document.getElementById("report");
  var timeline = { jump: null };

  function header() {
    var w = data.window;
    var parts = [];
    if (w.session !== null) parts.push("session " + w.session);
    if (w.since !== null) parts.push("since " + w.since);
    if (w.until !== null) parts.push("until " + w.until);
    document.title = (data.chain.broken ? "BROKEN CHAIN — " : "") + "Agent Warden report: " + parts.join(", ");
    root.appendChild(el("h1", { text: "Agent Warden audit report" }));
    root.appendChild(el("p", { cls: "sub", text: parts.join(" · ") + " — generated " + data.generated_at }));
    var c = data.chain;
    if (c.broken) {
      root.appendChild(el("div", { cls: "banner bad", id: "chain-verdict", "data-intact": "false" }, [
        "The audit chain does NOT verify: broken at seq " + c.broken.seq + ".",
        el("span", { cls: "detail", text: c.broken.why }),
        el("span", { cls: "detail", text: "Only events up to seq " + c.verified_through +
          " (all verified) are shown; nothing at or after the break is. Run `warden audit verify`." })
      ]));
    } else {
      root.appendChild(el("div", { cls: "banner ok", id: "chain-verdict", "data-intact": "true" }, [
        "The audit chain verifies: " + c.verified_through + " events from seq 1.",
        el("span", { cls: "detail", text: "head hash " + c.head_hash })
      ]));
    }
    if (c.checkpoint) {
      root.appendChild(el("div", { cls: "banner " + (c.checkpoint.ok ? "ok" : "bad"), id: "checkpoint-verdict" }, [
        c.checkpoint.ok ? "Checkpoint: consistent." : "Checkpoint: NOT consistent.",
        el("span", { cls: "detail", text: c.checkpoint.text })
      ]));
    }
    if (data.undecodable > 0) {
      root.appendChild(el("div", { cls: "banner warn", id: "undecodable" }, [
        data.undecodable + " event(s) could not be decoded by this reader; they are marked below with their raw payload.",
        el("span", { cls: "detail", text: "The spawn tree, the approvals and the violations may miss what they held." })
      ]));
    }
    if (data.rows.length === 0) {
      root.appendChild(el("div", { cls: "banner warn", id: "empty-window", text: "No event of the log falls in this window." }));
    }
    var totals = new Map([["allow", 0], ["deny", 0], ["block", 0]]);
    data.rows.forEach(function (r) { if (totals.has(r.verdict)) totals.set(r.verdict, totals.get(r.verdict) + 1); });
    root.appendChild(el("div", { cls: "counts" }, [
      el("div", { cls: "count" }, [el("b", { text: String(data.rows.length) }), "events"]),
      el("div", { cls: "count" }, [el("b", { text: String(totals.get("allow")) }), badge("allow")]),
      el("div", { cls: "count" }, [el("b", { text: String(totals.get("deny")) }), badge("deny")]),
      el("div", { cls: "count" }, [el("b", { text: String(totals.get("block")) }), badge("block")]),
      el("div", { cls: "count" }, [el("b", { text: String(data.violations.length) }), "violations"])
    ]));
  }

  function seqLink(seq) {
    var a = el("a", { cls: "seq", text: "seq " + seq, href: "#timeline" });
    a.addEventListener("click", function () { if (timeline.jump) timeline.jump(seq); });
    return a;
  }

  function trees() {
    root.appendChild(el("h2", { text: "Spawn tree", id: "spawn-tree" }));
    if (data.trees.length === 0) {
      root.appendChild(el("p", { cls: "muted", text: "No agent was spawned or checked in this window." }));
      return;
    }
    data.trees.forEach(function (tree) {
      root.appendChild(el("h3", { text: tree.session === null ? "without a session" : "session " + tree.session }));
      var byId = new Map();
      var children = new Map();
      tree.agents.forEach(function (a) { byId.set(a.id, a); });
      var roots = [];
      tree.agents.forEach(function (a) {
        if (a.parent !== null && byId.has(a.parent) && a.parent !== a.id) {
          if (!children.has(a.parent)) children.set(a.parent, []);
          children.get(a.parent).push(a);
        } else {
          roots.push(a);
        }
      });
      var seen = new Set();
      function item(a) {
        var v = a.start.verdict;
        var node = el("span", { cls: "node " + (v || ""), "data-agent": a.id }, [
          el("span", { cls: "type", text: a.type }),
          " ",
          el("span", { text: a.id }),
          el("span", { cls: "meta", text: "depth " + a.depth + " · " + a.checks + " checks, " + a.denied + " denied" +
            (a.untracked ? " · untracked" : "") }),
          " ",
          a.start.decided ? badge(v) : el("span", { cls: "muted", text: "first named at" }),
          " ",
          seqLink(a.start.seq),
          a.start.reason ? el("span", { cls: "why", text: a.start.reason }) : null,
          a.other_parents.length ? el("span", { cls: "why", text: "also named under: " + a.other_parents.join(", ") }) : null
        ]);
        var li = el("li", null, [node]);
        if (seen.has(a.id)) return li;
        seen.add(a.id);
        var kids = children.get(a.id) || [];
        if (kids.length) li.appendChild(el("ul", null, kids.map(item)));
        return li;
      }
      root.appendChild(el("ul", { cls: "tree" }, roots.map(item)));
      if (tree.unrecorded > 0) {
        root.appendChild(el("p", { cls: "muted", text: tree.unrecorded + " lineage(s) were too long to record (by digest only)." }));
      }
    });
  }

  function decisions() {
    root.appendChild(el("h2", { text: "Decisions", id: "timeline" }));
    var types = new Set();
    var sessions = new Set();
    data.rows.forEach(function (r) { types.add(r.type); sessions.add(r.session === null ? "" : r.session); });
    var checks = new Map();
    var bar = el("div", { cls: "filters" });
    ["allow", "deny", "block", "none"].forEach(function (v) {
      var box = el("input", { type: "checkbox", id: "show-" + v });
      box.checked = true;
      checks.set(v, box);
      box.addEventListener("change", function () { page = 0; draw(); });
      bar.appendChild(el("label", null, [box, " ", badge(v === "none" ? null : v)]));
    });
    function select(id, label, values) {
      var s = el("select", { id: id }, [el("option", { value: "*", text: label })]);
      Array.from(values).sort().forEach(function (v) { s.appendChild(el("option", { value: v, text: v === "" ? "(none)" : v })); });
      s.addEventListener("change", function () { page = 0; draw(); });
      bar.appendChild(s);
      return s;
    }
    var typeSelect = select("filter-type", "every type", types);
    var sessionSelect = select("filter-session", "every session", sessions);
    var search = el("input", { type: "search", id: "filter-text", placeholder: "search text, or #SEQ" });
    search.addEventListener("input", function () { page = 0; draw(); });
    bar.appendChild(search);
    var shown = el("span", { cls: "muted", id: "filter-count" });
    bar.appendChild(shown);
    root.appendChild(bar);
    var pager = el("div", { cls: "pager" });
    var prev = el("button", { type: "button", text: "◀ previous" });
    var next = el("button", { type: "button", text: "next ▶" });
    var where = el("span", { id: "page-of" });
    pager.appendChild(prev); pager.appendChild(where); pager.appendChild(next);
    root.appendChild(pager);
    var body = el("tbody", { id: "timeline-rows" });
    var cols = [["5%", "seq"], ["12%", "recorded at"], ["15%", "event"], ["6%", "verdict"], ["13%", "agent"], ["27%", "summary"], ["22%", "denial: layer · rule · reason"]];
    root.appendChild(el("table", null, [
      el("colgroup", null, cols.map(function (c) { return el("col", { style: "width:" + c[0] }); })),
      el("thead", null, [el("tr", null, cols.map(function (c) { return el("th", { text: c[1] }); }))]),
      body
    ]));
    var PAGE = 100;
    var page = 0;
    var matching = data.rows;
    var haystacks = data.rows.map(function (r) {
      return [r.summary, r.agent || "", r.actor, r.session || "", r.type, r.undecodable || "", r.raw || "",
        r.failed.map(function (f) { return f.layer + " " + (f.code || "") + " " + f.reason; }).join(" "),
        r.notes.join(" ")].join("\n").toLowerCase();
    });
    function matches(r, i, text, seq) {
      var v = r.verdict || "none";
      var box = checks.get(v);
      if (box && !box.checked) return false;
      if (typeSelect.value !== "*" && r.type !== typeSelect.value) return false;
      if (sessionSelect.value !== "*" && (r.session === null ? "" : r.session) !== sessionSelect.value) return false;
      if (seq !== null) return r.seq === seq;
      return text === "" || haystacks[i].indexOf(text) !== -1;
    }
    function row(r) {
      var verdictCell = r.undecodable ? el("span", { cls: "badge undecodable", text: "undecodable" }) : badge(r.verdict);
      var failed = el("td", null, r.failed.map(function (f) {
        return el("div", { cls: "failed" }, [el("b", { text: f.layer }), " · ", el("code", { text: f.code || "—" }), " · ", f.reason]);
      }));
      var summary = el("td", null, [r.summary]);
      if (r.undecodable) {
        summary.appendChild(el("div", { cls: "raw", text: r.undecodable }));
        summary.appendChild(el("div", { cls: "raw", text: r.raw || "" }));
      }
      if (r.notes.length) {
        summary.appendChild(el("details", null, [el("summary", { text: r.notes.length + " note(s)" }),
          el("ul", { cls: "plain" }, r.notes.map(function (n) { return el("li", { text: n }); }))]));
      }
      return el("tr", { cls: r.verdict || "", "data-seq": String(r.seq) }, [
        el("td", { cls: "num", text: String(r.seq) }),
        el("td", { text: r.at }),
        el("td", null, [el("code", { text: r.type }), r.session !== null && sessionSelect.options.length > 2 ? el("div", { cls: "muted", text: r.session }) : null]),
        el("td", null, [verdictCell]),
        el("td", { text: r.agent || "" }),
        summary,
        failed
      ]);
    }
    function draw() {
      var text = search.value.trim().toLowerCase();
      var seq = /^#\d+$/.test(text) ? Number(text.slice(1)) : null;
      matching = [];
      for (var i = 0; i < data.rows.length; i++) {
        if (matches(data.rows[i], i, text, seq)) matching.push(data.rows[i]);
      }
      var pages = Math.max(1, Math.ceil(matching.length / PAGE));
      if (page >= pages) page = pages - 1;
      var fragment = document.createDocumentFragment();
      matching.slice(page * PAGE, page * PAGE + PAGE).forEach(function (r) { fragment.appendChild(row(r)); });
      body.replaceChildren(fragment);
      shown.textContent = matching.length + " of " + data.rows.length + " events";
      where.textContent = "page " + (page + 1) + " of " + pages;
      prev.disabled = page === 0;
      next.disabled = page + 1 >= pages;
    }
    prev.addEventListener("click", function () { page -= 1; draw(); });
    next.addEventListener("click", function () { page += 1; draw(); });
    timeline.jump = function (seq) {
      checks.forEach(function (box) { box.checked = true; });
      typeSelect.value = "*"; sessionSelect.value = "*";
      search.value = "#" + seq; page = 0; draw();
    };
    draw();
  }

  function signature(s) {
    var cls = s.status === "verified" ? "ok-text" : s.status === "refused" || s.status === "unsigned" ? "bad-text" : "muted";
    return el("span", null, [
      s.principal === null ? "no signer" : "signed by " + s.principal, " — ",
      el("span", { cls: cls, "data-signature": s.status, text: s.status.replace("_", " ") }),
      s.why ? el("span", { cls: "muted", text: " (" + s.why + ")" }) : null
    ]);
  }

  function records() {
    var r = data.records;
    root.appendChild(el("h2", { text: "Approvals and seals in force", id: "records" }));
    if (r.unavailable) {
      root.appendChild(el("p", { cls: "bad-text", text: "Not read: " + r.unavailable }));
      return;
    }
    root.appendChild(el("p", { cls: "muted", text: "As of seq " + r.as_of + " (the log's head); signatures checked as every decision checks them." }));
    if (r.seal) {
      root.appendChild(el("div", { id: "seal" }, [
        el("b", { text: "Seal " }), seqLink(r.seal.seq), " by " + (r.seal.by === null ? "(not named)" : r.seal.by) + " — ",
        signature(r.seal.signature),
        el("details", null, [el("summary", { text: r.seal.files.length + " file(s) sealed" }),
          el("ul", { cls: "plain" }, r.seal.files.map(function (f) { return el("li", { text: f }); }))])
      ]));
    } else {
      root.appendChild(el("p", { text: "No seal is recorded." }));
    }
    if (r.approvals.length === 0) {
      root.appendChild(el("p", { text: "No approval is recorded." }));
      return;
    }
    var cols = ["reference", "granted", "approved by", "state", "scope", "signature", "decisions of this report under it"];
    root.appendChild(el("table", { id: "approvals" }, [
      el("thead", null, [el("tr", null, cols.map(function (c) { return el("th", { text: c }); }))]),
      el("tbody", null, r.approvals.map(function (a) {
        return el("tr", null, [
          el("td", null, [el("code", { text: a.approval_ref })]),
          el("td", null, [seqLink(a.seq)]),
          el("td", { text: a.approved_by === null ? "(not named)" : a.approved_by }),
          el("td", { text: a.state + (a.expires_at ? " (expires " + a.expires_at + ")" : "") }),
          el("td", { text: "personas: " + (a.personas.join(", ") || "any") + "; subagents: " + (a.subagents.join(", ") || "any") }),
          el("td", null, [signature(a.signature)]),
          el("td", null, a.used_by.length ? a.used_by.slice(0, 50).map(function (s) { return el("span", null, [seqLink(s), " "]); }) : ["none"])
        ]);
      }))
    ]));
  }

  function violations() {
    root.appendChild(el("h2", { text: "Protected-path violations", id: "violations" }));
    if (data.violations.length === 0) {
      root.appendChild(el("p", { text: "No protected path was changed in this window." }));
      return;
    }
    var cols = ["event", "recorded at", "who", "what", "changed", "put back?"];
    root.appendChild(el("table", null, [
      el("thead", null, [el("tr", null, cols.map(function (c) { return el("th", { text: c }); }))]),
      el("tbody", null, data.violations.map(function (v) {
        return el("tr", { cls: v.reverted ? "" : "deny" }, [
          el("td", null, [seqLink(v.seq)]),
          el("td", { text: v.at }),
          el("td", { text: v.who }),
          el("td", { text: v.kind }),
          el("td", null, [el("ul", { cls: "plain" }, v.changed.map(function (f) { return el("li", { text: f }); }))]),
          el("td", null, [el("span", { cls: v.reverted ? "ok-text" : "bad-text", text: v.reverted ? "reverted" : "NOT reverted" }),
            v.error ? el("div", { cls: "muted", text: v.error }) : null])
        ]);
      }))
    ]));
  }

  header();
  trees();
  decisions();
  records();
  violations();
  status.dataset.rows = String(data.rows.length);
  status.dataset.agents = String(data.trees.reduce(function (n, t) { return n + t.agents.length; }, 0));
  status.dataset.ms = String(Math.round(performance.now() - started));
  if (status.dataset.state === "loading") status.dataset.state = "ok";
})();
