// The conformance page's filters (harness/cli/page.py). The page reads fine without them.
(function () {
  "use strict";
  // The divergence classes: cards and table rows, by implementation, status and cause.
  var classFilters = ["class-impl", "class-status", "class-cause"];
  function applyClasses() {
    var impl = get("class-impl"), status = get("class-status"), cause = get("class-cause"), shown = 0;
    var cards = document.querySelectorAll("article.class");
    document.querySelectorAll("article.class, tr.class-row").forEach(function (el) {
      var ok = (impl === "" || el.getAttribute("data-impls").split(" ").indexOf(impl) >= 0) &&
        (status === "" || el.getAttribute("data-status") === status) &&
        (cause === "" || el.getAttribute("data-cause") === cause);
      el.classList.toggle("hidden", !ok);
      if (ok && el.tagName === "ARTICLE") { shown += 1; }
    });
    var count = document.getElementById("class-count");
    if (count) { count.textContent = shown + " of " + cards.length + " classes shown"; }
  }
  var get = function (id) { var el = document.getElementById(id); return el ? el.value.trim() : ""; };
  classFilters.forEach(function (id) {
    var el = document.getElementById(id);
    if (el) { el.addEventListener("change", applyClasses); }
  });
  applyClasses();

  var matrix = document.getElementById("matrix-table");
  if (!matrix) { return; }
  var ids = ["filter-impl", "filter-family", "filter-state", "filter-step", "filter-text"];

  function apply() {
    var impl = get("filter-impl"), family = get("filter-family"), state = get("filter-state");
    var step = get("filter-step"), text = get("filter-text").toLowerCase();
    // An implementation chosen: only its column is shown, and the state filter reads its cells alone.
    matrix.querySelectorAll("[data-impl]").forEach(function (el) {
      el.classList.toggle("hidden", impl !== "" && el.getAttribute("data-impl") !== impl);
    });
    var rows = matrix.querySelectorAll("tbody tr.case"), shown = 0;
    rows.forEach(function (row) {
      var ok = (family === "" || row.getAttribute("data-fixture") === family) &&
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
    document.getElementById("matrix-count").textContent = shown + " of " + rows.length + " cases shown";
  }

  ids.forEach(function (id) {
    var el = document.getElementById(id);
    if (el) { el.addEventListener(el.tagName === "INPUT" ? "input" : "change", apply); }
  });
  apply();
}());
