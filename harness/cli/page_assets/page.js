// The conformance page's filters (harness/cli/page.py). The page reads fine without them.
// Every filter is kept in the URL (#f:ID=VALUE&...), so a filtered view is a link; a class's anchor (its
// identity, the same in every run) opens its folded card.
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

  // The divergence classes: cards and table rows, by implementation, status and cause.
  function applyClasses() {
    var impl = get("class-impl"), status = get("class-status"), cause = get("class-cause"), shown = 0;
    var words = get("class-text").toLowerCase().split(/\s+/).filter(function (w) { return w !== ""; });
    var cards = document.querySelectorAll("article.class");
    document.querySelectorAll("article.class, tr.class-row").forEach(function (el) {
      var text = el.getAttribute("data-search") || "";
      var ok = (impl === "" || el.getAttribute("data-impls").split(" ").indexOf(impl) >= 0) &&
        (status === "" || el.getAttribute("data-status") === status) &&
        (cause === "" || el.getAttribute("data-cause") === cause) &&
        words.every(function (word) { return text.indexOf(word) >= 0; });
      el.classList.toggle("hidden", !ok);
      if (ok && el.tagName === "ARTICLE") { shown += 1; }
    });
    var count = document.getElementById("class-count");
    if (count) { count.textContent = shown + " of " + cards.length + " classes shown"; }
  }

  // A page of many classes carries each card's details as data (#card-bodies, by anchor): a card is filled in
  // when it is opened, or when an open one comes near the window.
  var bodies = null;
  function fill(card) {
    var slot = card ? card.querySelector("div.card-body[data-lazy]") : null;
    if (!slot) { return; }
    if (bodies === null) {
      var data = document.getElementById("card-bodies");
      bodies = data ? JSON.parse(data.textContent) : {};
    }
    slot.innerHTML = bodies[card.id] || "";
    slot.removeAttribute("data-lazy");
  }
  var lazy = document.querySelectorAll("article.class div.card-body[data-lazy]");
  if (lazy.length) {
    document.addEventListener("toggle", function (event) {
      if (event.target.open) { fill(event.target.closest("article.class")); }
    }, true);
    if ("IntersectionObserver" in window) {
      var near = new IntersectionObserver(function (entries) {
        entries.forEach(function (entry) {
          var card = entry.target, details = card.querySelector("details");
          if (entry.isIntersecting && details && details.open) { fill(card); near.unobserve(card); }
        });
      }, {rootMargin: "1500px 0px"});
      lazy.forEach(function (slot) { near.observe(slot.closest("article.class")); });
    }
  }

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

  function openAnchored() {
    var target = location.hash.length > 1 ? document.getElementById(location.hash.slice(1)) : null;
    if (target && target.tagName === "ARTICLE") {
      var folded = target.querySelector("details");
      if (folded) { folded.open = true; }
      fill(target);
    }
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
