// The ledger's "Find memory": bring the found row (tr.found) into view and give it focus,
// when the page opens with one and when an htmx answer brings a new one. A refresh that
// finds the same row again (the budget moved, say) leaves the page where the person is.
// Without scripts, the "go to its row" link does the same.
let lastFound = null;

function goToFoundRow() {
  const row = document.querySelector("tr.found");
  if (!row || row.id === lastFound) return;
  lastFound = row.id;
  row.scrollIntoView({ block: "center" });
  row.focus({ preventScroll: true });
}

document.addEventListener("DOMContentLoaded", goToFoundRow);
document.addEventListener("htmx:afterSettle", goToFoundRow);
