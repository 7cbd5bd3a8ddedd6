// Theme toggle, copy buttons, search and table filters. Everything else works without JavaScript.
(function () {
  "use strict";
  var root = document.documentElement;
  var siteRoot = new URL(root.getAttribute("data-root") || "./", location.href);

  function systemTheme() {
    return window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
  }

  // ---------------------------------------------------------------- theme
  var toggle = document.getElementById("theme-toggle");
  if (toggle) {
    toggle.hidden = false;
    toggle.addEventListener("click", function () {
      var next = (root.dataset.theme || systemTheme()) === "dark" ? "light" : "dark";
      root.dataset.theme = next;
      try { localStorage.setItem("theme", next); } catch (e) { /* not remembered */ }
    });
  }

  // ---------------------------------------------------------------- copy buttons
  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    var box = button.closest(".code-file, .sample-io");
    var code = box && box.querySelector("pre code, pre.io:not(.io-empty)");
    if (!code || !navigator.clipboard) return;
    button.hidden = false;
    button.addEventListener("click", function () {
      navigator.clipboard.writeText(code.textContent).then(function () {
        button.textContent = "Copied";
        setTimeout(function () { button.textContent = "Copy"; }, 1500);
      });
    });
  });

  // ---------------------------------------------------------------- folds (the editorial: spoilers)
  // Folded by default; a reader who opens it finds it open on every page until they fold it again.
  // A link to a heading inside it (#editorial, a heading of the write-up) opens it.
  document.querySelectorAll("details[data-remember]").forEach(function (fold) {
    var key = "fold:" + fold.getAttribute("data-remember");
    try {
      if (localStorage.getItem(key) === "open") fold.open = true;
    } catch (e) { /* storage may be off */ }
    function follow() {
      var target = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
      if (target && fold.contains(target) && !fold.open) { fold.open = true; target.scrollIntoView(); }
    }
    follow();
    window.addEventListener("hashchange", follow);
    fold.addEventListener("toggle", function () {
      try { localStorage.setItem(key, fold.open ? "open" : "closed"); } catch (e) { /* storage may be off */ }
    });
  });

  // ---------------------------------------------------------------- tabs: statement languages, solutions
  // Without JavaScript every panel is shown, one after another, each under its name. The choice is
  // remembered by the tab's data-key (the statement's language, the solution's programming language).
  document.querySelectorAll("[data-tabs]").forEach(function (list) {
    var tabs = Array.prototype.slice.call(list.querySelectorAll('[role="tab"]'));
    var remember = list.getAttribute("data-tabs");
    function select(tab, focus, save) {
      tabs.forEach(function (t) {
        var on = t === tab;
        t.setAttribute("aria-selected", on ? "true" : "false");
        t.tabIndex = on ? 0 : -1;
        document.getElementById(t.getAttribute("aria-controls")).hidden = !on;
      });
      if (focus) tab.focus();
      if (save) {
        try { localStorage.setItem(remember, tab.getAttribute("data-key")); } catch (e) { /* not remembered */ }
      }
    }
    list.hidden = false;
    list.parentNode.classList.add("has-lang-tabs");
    var saved = null;
    try { saved = localStorage.getItem(remember); } catch (e) { /* none */ }
    select(tabs.filter(function (t) { return t.getAttribute("data-key") === saved; })[0] || tabs[0], false, false);
    tabs.forEach(function (tab, index) {
      tab.addEventListener("click", function () { select(tab, false, true); });
      tab.addEventListener("keydown", function (event) {
        var step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
        if (event.key === "Home") step = -index;
        if (event.key === "End") step = tabs.length - 1 - index;
        if (step === undefined) return;
        event.preventDefault();
        select(tabs[(index + step + tabs.length) % tabs.length], true, true);
      });
    });
  });

  // ---------------------------------------------------------------- search (Pagefind)
  // The input is a combobox (WAI-ARIA APG): focus stays in it, the arrow keys move through the
  // results (aria-activedescendant), Enter opens one, Escape closes the list (and clears the input
  // when the list is closed already). Results come a page at a time, as many as match.
  var box = document.querySelector(".search");
  var input = document.getElementById("search-input");
  var panel = document.getElementById("search-results");
  var PAGE = 10;
  var pagefind = null;
  var stale = Object.create(null);  // URLs whose records in the shards are stale: only the fresh index's count
  var searchId = 0;
  var state = { pending: [], matches: null, query: "", shown: 0, active: -1 };

  function loadPagefind() {
    if (!pagefind) {
      // The index comes in shards (pagefind/shards.json lists all but the first): one search runs on all.
      // After a quick build, the last is the fresh index of the entries it changed, whose records in
      // the other shards are stale (listed there too): a result counts only from the fresh one.
      pagefind = import(new URL("pagefind/pagefind.js", siteRoot).href).then(function (module) {
        return module.options({ excerptLength: 24 }).then(function () {
          return fetch(new URL("pagefind/shards.json", siteRoot).href).then(function (response) {
            return response.ok ? response.json() : {};
          }).catch(function () { return {}; });
        }).then(function (listed) {
          (listed.stale || []).forEach(function (url) { stale[url] = true; });
          return Promise.all((listed.shards || []).map(function (folder) {
            return module.mergeIndex(new URL(folder, siteRoot).href, { excerptLength: 24 });
          }));
        }).then(function () { return module; });
      });
    }
    return pagefind;
  }

  function resultLink(url) {
    return new URL(url.replace(/^\//, ""), siteRoot).href;
  }

  function options() {
    return Array.prototype.slice.call(panel.querySelectorAll('[role="option"]'));
  }

  function setOpen(open) {
    panel.hidden = !open;
    input.setAttribute("aria-expanded", open ? "true" : "false");
    if (!open) activate(-1);
  }

  function activate(index) {
    var all = options();
    state.active = index;
    all.forEach(function (option, i) { option.setAttribute("aria-selected", i === index ? "true" : "false"); });
    if (index >= 0 && all[index]) {
      input.setAttribute("aria-activedescendant", all[index].id);
      all[index].scrollIntoView({ block: "nearest" });
    } else {
      input.removeAttribute("aria-activedescendant");
    }
  }

  function note(text) {
    panel.innerHTML = "";
    var p = document.createElement("p");
    p.className = "search-note";
    p.textContent = text;
    panel.appendChild(p);
    setOpen(true);
  }

  // Each word of the query as it is looked for: a word starting with its stem (all but its last two
  // letters). Pagefind also returns pages that match a query only loosely ("xyzzy" finding every "x"):
  // a result must contain each stem.
  function stems(query) {
    return query.toLowerCase().split(/\s+/).filter(Boolean).map(function (word) {
      return word.length > 4 ? word.slice(0, word.length - 2) : word;
    });
  }

  function escapeHtml(text) {
    return text.replace(/[&<>"]/g, function (c) { return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]; });
  }

  // The part of a record a reader may see before solving (the write-up comes after meta.editorial),
  // and an excerpt of it around the first word found, with the words marked.
  function statementPart(data) {
    var at = parseInt((data.meta && data.meta.editorial) || "", 10);
    return isNaN(at) ? (data.content || "") : (data.content || "").slice(0, at);
  }

  function excerpt(text, words) {
    var low = text.toLowerCase();
    var first = -1;
    words.forEach(function (w) { var i = low.indexOf(w); if (i >= 0 && (first < 0 || i < first)) first = i; });
    var from = first > 60 ? text.lastIndexOf(" ", first - 60) + 1 : 0;
    var cut = text.slice(from, from + 200);
    var end = cut.length === 200 ? cut.lastIndexOf(" ") : cut.length;
    var html = escapeHtml(cut.slice(0, end > 0 ? end : cut.length));
    words.forEach(function (w) {
      if (w.length < 2) return;
      var pattern = new RegExp("(^|[^\\w])(" + w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") + "[\\w-]*)", "gi");
      html = html.replace(pattern, function (_, before, word) { return before + "<mark>" + word + "</mark>"; });
    });
    return (from > 0 ? "\u2026" : "") + html + (from + end < text.length ? " \u2026" : "");
  }

  function option(data, words, index) {
    var item = document.createElement("li");
    item.setAttribute("role", "option");
    item.id = "search-option-" + index;
    item.dataset.href = resultLink(data.url);
    var title = document.createElement("span");
    title.className = "result-title";
    title.textContent = (data.meta && data.meta.title) || data.url;
    var text = statementPart(data);
    var low = (title.textContent + " " + text).toLowerCase();
    var inEditorial = words.some(function (w) { return low.indexOf(w) < 0; });
    var body = document.createElement("span");
    body.className = "result-excerpt";
    // Pagefind's own excerpt may quote the write-up: ours quotes the statement only.
    var heading = text.indexOf(". ") + 2;
    body.innerHTML = excerpt(text.slice(heading > 1 ? heading : 0), inEditorial ? [] : words);
    item.appendChild(title);
    if (inEditorial) {
      var where = document.createElement("span");
      where.className = "result-where";
      where.textContent = "Matches in the editorial";
      item.appendChild(where);
    }
    item.appendChild(body);
    item.addEventListener("click", function () { location.href = item.dataset.href; });
    return item;
  }

  function render() {
    panel.innerHTML = "";
    if (!state.matches.length && !state.pending.length) { note("No entry matches \u201c" + state.query + "\u201d."); return; }
    var words = stems(state.query);
    var list = document.createElement("ul");
    list.id = "search-list";
    list.setAttribute("role", "listbox");
    list.setAttribute("aria-label", "Search results");
    state.matches.forEach(function (data, i) { list.appendChild(option(data, words, i)); });
    panel.appendChild(list);
    var foot = document.createElement("p");
    foot.className = "search-note";
    foot.textContent = state.pending.length
      ? "Showing " + state.matches.length + " of up to " + (state.matches.length + state.pending.length) + " results. "
      : state.matches.length + (state.matches.length === 1 ? " result." : " results.");
    if (state.pending.length) {
      var more = document.createElement("button");
      more.type = "button";
      more.className = "search-more";
      more.textContent = "More results";
      more.addEventListener("click", function () { loadMore(searchId, true); });
      foot.appendChild(more);
    }
    panel.appendChild(foot);
    setOpen(true);
  }

  // The next page of results: Pagefind's data for them, fetched now, kept when every stem is in it.
  function loadMore(id, keepFocus) {
    var batch = state.pending.splice(0, PAGE * 2);
    var words = stems(state.query);
    return Promise.all(batch.map(function (r) { return r.data(); })).then(function (loaded) {
      if (id !== searchId) return;
      loaded.forEach(function (data) {
        if (stale[data.url] && !(data.meta && data.meta.fresh)) return;
        var text = (((data.meta && data.meta.title) || "") + " " + (data.content || "")).toLowerCase();
        if (words.every(function (w) { return text.indexOf(w) >= 0; })) state.matches.push(data);
      });
      if (state.matches.length < state.shown + PAGE && state.pending.length) return loadMore(id, keepFocus);
      state.shown = state.matches.length;
      var active = state.active;
      render();
      if (keepFocus) input.focus();
      activate(active);
    });
  }

  function runSearch() {
    var query = input.value.trim();
    var id = ++searchId;
    if (!query) { setOpen(false); return; }
    loadPagefind().then(function (module) {
      return module.debouncedSearch(query, {}, 120);
    }).then(function (search) {
      if (search === null || id !== searchId) return null;
      state = { pending: search.results.slice(), matches: [], query: query, shown: 0, active: -1 };
      return loadMore(id, false);
    }).catch(function () {
      note(location.protocol === "file:"
        ? "Search needs the site to be served over HTTP (any static host, or make serve)."
        : "The search index could not be loaded.");
    });
  }

  if (box && input && panel) {
    box.hidden = false;
    input.setAttribute("role", "combobox");
    input.setAttribute("aria-autocomplete", "list");
    input.setAttribute("aria-expanded", "false");
    input.setAttribute("aria-controls", "search-results");
    if (window.matchMedia && window.matchMedia("(pointer: fine)").matches) input.placeholder = "Search  /";
    input.addEventListener("input", runSearch);
    input.addEventListener("focus", function () { loadPagefind().catch(function () {}); });
    input.addEventListener("click", function () { if (input.value && panel.hidden) runSearch(); });
    input.addEventListener("keydown", function (event) {
      var all = options();
      if (event.key === "Escape") {
        event.preventDefault();
        if (!panel.hidden) setOpen(false);
        else input.value = "";
      } else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        event.preventDefault();
        if (panel.hidden) { if (input.value) runSearch(); return; }
        if (!all.length) return;
        var step = event.key === "ArrowDown" ? 1 : -1;
        activate(state.active < 0 ? (step > 0 ? 0 : all.length - 1) : (state.active + step + all.length) % all.length);
      } else if (event.key === "Enter" && !panel.hidden && state.active >= 0 && all[state.active]) {
        event.preventDefault();
        location.href = all[state.active].dataset.href;
      }
    });
    document.addEventListener("click", function (event) {
      if (!box.contains(event.target)) setOpen(false);
    });
    document.addEventListener("keydown", function (event) {
      var typing = /^(INPUT|TEXTAREA|SELECT)$/.test(document.activeElement.tagName) || document.activeElement.isContentEditable;
      if (event.key === "/" && !typing && !event.ctrlKey && !event.metaKey && !event.altKey) {
        event.preventDefault();
        input.focus();
        input.select();
      }
    });
  }

  // ---------------------------------------------------------------- track filters
  var filters = document.querySelector(".filters");
  if (filters) {
    filters.hidden = false;
    var rows = Array.prototype.slice.call(document.querySelectorAll("tr[data-entry]"));
    var count = filters.querySelector(".filter-count");
    var fields = {};
    filters.querySelectorAll("[data-filter]").forEach(function (field) { fields[field.dataset.filter] = field; });

    var apply = function () {
      var tag = fields.tag.value, year = fields.year.value, status = fields.status.value;
      var low = parseInt(fields.min.value, 10), high = parseInt(fields.max.value, 10);
      var shown = 0;
      rows.forEach(function (row) {
        var rating = parseInt(row.dataset.rating, 10);
        var visible = (!tag || (" " + row.dataset.tags + " ").indexOf(" " + tag + " ") >= 0)
          && (!year || row.dataset.year === year)
          && (!status || row.dataset.status === status)
          && (isNaN(low) || (!isNaN(rating) && rating >= low))
          && (isNaN(high) || (!isNaN(rating) && rating <= high));
        row.hidden = !visible;
        if (visible) shown += 1;
      });
      document.querySelectorAll("section.group").forEach(function (group) {
        group.hidden = !group.querySelector("tr[data-entry]:not([hidden])");
      });
      count.textContent = "Showing " + shown + " of " + rows.length;
    };
    // The filters live in the address (#tag=graphs&year=2024), so a filtered table can be linked,
    // bookmarked and gone back to.
    var fromAddress = function () {
      var given = new URLSearchParams(location.hash.replace(/^#/, ""));
      Object.keys(fields).forEach(function (name) { fields[name].value = given.get(name) || ""; });
    };
    var toAddress = function () {
      var chosen = new URLSearchParams();
      Object.keys(fields).forEach(function (name) { if (fields[name].value) chosen.set(name, fields[name].value); });
      var hash = chosen.toString();
      history.replaceState(null, "", hash ? "#" + hash : location.pathname + location.search);
    };
    Object.keys(fields).forEach(function (name) {
      fields[name].addEventListener("input", function () { apply(); toAddress(); });
    });
    window.addEventListener("hashchange", function () { fromAddress(); apply(); });
    if (/^#(tag|year|status|min|max)=/.test(location.hash)) fromAddress();
    apply();
  }
})();
