// The conformance page's filters (harness/cli/page.py). The page reads fine without them.
// Every filter is kept in the URL (#f:ID=VALUE&...), so a filtered view is a link; a class's anchor (its
// identity, the same in every run) opens its folded group and card; a group's anchor opens the group.
(function () {
  "use strict";
  var get = function (id) { var el = document.getElementById(id); return el ? el.value.trim() : ""; };
  var classFilters = ["class-impl", "class-status", "class-cause", "class-text"];
  var matrixFilters = ["filter-impl", "filter-family", "filter-state", "filter-step", "filter-text"];
  var every = classFilters.concat(matrixFilters);
  var PREFIX = "#f:";

  function restoreFilters() {
    if (location.hash.indexOf(PREFIX) !== 0) { return; }
    location.hash.slice(PREFIX.length).split("&").forEach(function (pair) {
      var at = pair.indexOf("="), id = pair.slice(0, at), el = document.getElementById(id);
      if (at > 0 && el && every.indexOf(id) >= 0) {
        try { el.value = decodeURIComponent(pair.slice(at + 1)); } catch (e) { /* a hand-made URL: ignored */ }
      }
    });
  }

  function saveFilters() {
    var parts = [];
    every.forEach(function (id) {
      var value = get(id);
      if (value !== "") { parts.push(id + "=" + encodeURIComponent(value)); }
    });
    if (parts.length === 0 && location.hash.indexOf(PREFIX) !== 0) { return; }  // keep a class's anchor
    var hash = parts.length ? PREFIX + parts.join("&") : "";
    history.replaceState(null, "", location.pathname + location.search + hash);
  }

  // The divergence classes, in folded groups (harness/cli/class_groups.py): #class-index holds each group's
  // classes (anchor, implementations, status, cause, search text), so that each group counts the classes that
  // match the filters whether or not its cards are in; a group with none is hidden. Cards and table rows in the
  // page are shown or hidden by their own attributes.
  var indexData = document.getElementById("class-index");
  var index = indexData ? JSON.parse(indexData.textContent) : {};
  var groupOf = {};
  Object.keys(index).forEach(function (group) {
    index[group].forEach(function (entry) { groupOf[entry[0]] = group; });
  });

  function classFilter() {
    var impl = get("class-impl"), status = get("class-status"), cause = get("class-cause");
    var words = get("class-text").toLowerCase().split(/\s+/).filter(function (w) { return w !== ""; });
    return {
      on: impl !== "" || status !== "" || cause !== "" || words.length > 0,
      test: function (impls, st, ca, text) {
        return (impl === "" || impls.split(" ").indexOf(impl) >= 0) && (status === "" || st === status) &&
          (cause === "" || ca === cause) && words.every(function (word) { return text.indexOf(word) >= 0; });
      }
    };
  }

  function applyClasses() {
    var filter = classFilter(), shown = 0, total = 0;
    document.querySelectorAll("details.group").forEach(function (group) {
      var entries = index[group.id] || [], matching = 0;
      entries.forEach(function (e) { if (filter.test(e[1], e[2], e[3], e[4])) { matching += 1; } });
      shown += matching;
      total += entries.length;
      var count = group.querySelector(".group-count");
      if (count) {
        var all = Number(count.getAttribute("data-count"));
        count.textContent = (filter.on ? matching + " of " : "") + all + (all === 1 ? " class" : " classes");
        count.setAttribute("data-shown", String(matching));
      }
      group.classList.toggle("hidden", filter.on && matching === 0);
    });
    document.querySelectorAll("article.class, tr.class-row").forEach(function (el) {
      var ok = filter.test(el.getAttribute("data-impls") || "", el.getAttribute("data-status"),
                           el.getAttribute("data-cause"), el.getAttribute("data-search") || "");
      el.classList.toggle("hidden", !ok);
    });
    var count = document.getElementById("class-count");
    if (count) { count.textContent = shown + " of " + total + " classes shown"; }
  }

  // A page of many classes carries each group's cards (#group-cards, by group anchor) and each card's details
  // (#card-bodies, by class anchor) as data: a group is filled in when it is opened, a card when it is opened
  // or when an open one comes near the window.
  var blocks = {};
  function data(id) {
    if (!(id in blocks)) {
      var el = document.getElementById(id);
      blocks[id] = el ? JSON.parse(el.textContent) : {};
    }
    return blocks[id];
  }
  function fill(card) {
    var slot = card ? card.querySelector("div.card-body[data-lazy]") : null;
    if (!slot) { return; }
    slot.innerHTML = data("card-bodies")[card.id] || "";
    slot.removeAttribute("data-lazy");
  }
  var near = "IntersectionObserver" in window ? new IntersectionObserver(function (entries) {
    entries.forEach(function (entry) {
      var card = entry.target, details = card.querySelector("details");
      if (entry.isIntersecting && details && details.open) { fill(card); near.unobserve(card); }
    });
  }, {rootMargin: "1500px 0px"}) : null;
  function watch(root) {
    if (!near) { return; }
    root.querySelectorAll("article.class div.card-body[data-lazy]").forEach(function (slot) {
      near.observe(slot.closest("article.class"));
    });
  }
  function fillGroup(group) {
    var slot = group ? group.querySelector("div.group-body[data-lazy]") : null;
    if (!slot) { return; }
    slot.innerHTML = data("group-cards")[group.id] || "";
    slot.removeAttribute("data-lazy");
    applyClasses();
    watch(slot);
  }
  document.addEventListener("toggle", function (event) {
    var target = event.target;
    if (!target.open) { return; }
    if (target.classList.contains("group")) { fillGroup(target); } else { fill(target.closest("article.class")); }
  }, true);
  watch(document);

  var showTable = document.getElementById("show-class-table");
  if (showTable) {
    showTable.addEventListener("click", function () {
      var template = document.getElementById("class-table");
      template.parentNode.insertBefore(template.content.cloneNode(true), template);
      template.remove();
      showTable.parentNode.remove();
      applyClasses();
    });
  }

  // An anchor: a group's opens it; a class's opens its group and its card, and goes to the card.
  function openAnchored() {
    var id = location.hash.length > 1 ? location.hash.slice(1) : "";
    if (id === "" || id.indexOf("f:") === 0) { return; }
    var group = document.getElementById(groupOf[id] || id);
    if (group && group.classList.contains("group")) {
      group.open = true;
      fillGroup(group);
    }
    var target = document.getElementById(id);
    if (target && target.tagName === "ARTICLE") {
      var folded = target.querySelector("details");
      if (folded) { folded.open = true; }
      fill(target);
    }
    if (target && groupOf[id]) { target.scrollIntoView(); }
  }

  // The fixture cases: an implementation chosen shows its column alone, and the state filter reads its cells.
  var matrix = document.getElementById("matrix-table");
  function applyMatrix() {
    if (!matrix) { return; }
    var impl = get("filter-impl"), family = get("filter-family"), state = get("filter-state");
    var step = get("filter-step"), text = get("filter-text").toLowerCase();
    matrix.querySelectorAll("[data-impl]").forEach(function (el) {
      el.classList.toggle("hidden", impl !== "" && el.getAttribute("data-impl") !== impl);
    });
    var rows = matrix.querySelectorAll("tbody tr.case"), shown = 0;
    var filtered = impl !== "" || family !== "" || state !== "" || step !== "" || text !== "";
    rows.forEach(function (row) {
      // No filter: a case every implementation passes stays folded in its group until the group is unfolded.
      var folded = !filtered && row.classList.contains("passing") && !row.parentNode.classList.contains("open");
      var ok = !folded && (family === "" || row.getAttribute("data-fixture") === family) &&
        (step === "" || row.getAttribute("data-steps").split(" ").indexOf(step) >= 0) &&
        (text === "" || row.getAttribute("data-case").toLowerCase().indexOf(text) >= 0);
      if (ok && state !== "") {
        ok = Array.prototype.some.call(row.querySelectorAll("td.cell"), function (cell) {
          return (impl === "" || cell.getAttribute("data-impl") === impl) &&
            cell.getAttribute("data-state") === state;
        });
      }
      row.classList.toggle("hidden", !ok);
      if (ok) { shown += 1; }
    });
    matrix.querySelectorAll("tbody.group").forEach(function (group) {  // a group with nothing asked for: hidden
      group.classList.toggle("hidden", filtered && !group.querySelector("tr.case:not(.hidden)"));
    });
    document.getElementById("matrix-count").textContent = shown + " of " + rows.length + " cases shown";
  }
  if (matrix) {
    matrix.querySelectorAll("tbody.group button.unfold").forEach(function (button) {
      button.addEventListener("click", function () {
        var group = button.closest("tbody");
        group.classList.toggle("open");
        button.setAttribute("aria-expanded", group.classList.contains("open") ? "true" : "false");
        applyMatrix();
      });
    });
  }

  restoreFilters();
  every.forEach(function (id) {
    var el = document.getElementById(id);
    if (!el) { return; }
    var apply = classFilters.indexOf(id) >= 0 ? applyClasses : applyMatrix;
    el.addEventListener(el.tagName === "INPUT" ? "input" : "change", function () { apply(); saveFilters(); });
  });
  window.addEventListener("hashchange", function () { restoreFilters(); applyClasses(); applyMatrix(); openAnchored(); });
  applyClasses();
  applyMatrix();
  openAnchored();
}());
