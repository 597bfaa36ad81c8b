// The conformance page's filters (harness/cli/page.py). The page reads fine without them.
(function () {
  "use strict";
  var matrix = document.getElementById("matrix-table");
  if (!matrix) { return; }
  var ids = ["filter-impl", "filter-family", "filter-state", "filter-step", "filter-text"];
  var get = function (id) { var el = document.getElementById(id); return el ? el.value.trim() : ""; };

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
