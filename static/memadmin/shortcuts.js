// "/" searches, as on most sites: it focuses the page's text search (a field named q), or
// opens the memory list with its search focused. Typing "/" in a field types it.
const SEARCH = 'input[name="q"]';

document.addEventListener("keydown", (event) => {
  if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.target.closest?.("input, textarea, select, [contenteditable]")) return;
  event.preventDefault();
  const search = document.querySelector(SEARCH);
  if (search) {
    search.focus();
    search.select();
  } else {
    window.location.assign(`${document.body.dataset.searchUrl}#search`);
  }
});

document.addEventListener("DOMContentLoaded", () => {
  if (window.location.hash === "#search") document.querySelector(SEARCH)?.focus();
});
