// The memory list's "select every memory shown" box: ticks or unticks every row's box, then
// tells the bulk bar (one change event, as a click on a row would), so its actions follow.
// Hidden until this script marks the page: without scripts, rows are ticked one by one.
document.documentElement.classList.add("js");
document.addEventListener("change", (event) => {
  const all = event.target.closest("input.select-all");
  if (!all) return;
  const table = all.closest("table");
  const boxes = table.querySelectorAll('tbody input[type="checkbox"][name="ids"]');
  boxes.forEach((box) => { box.checked = all.checked; });
  if (boxes.length) boxes[boxes.length - 1].dispatchEvent(new Event("change", { bubbles: true }));
});
