// A picker whose choice was just made comes back from the server marked `data-focus-end`:
// as it is swapped in, put the caret after what the field holds (the chosen id and its
// separator) and focus it, in one step, so typing goes on with the next search. (htmx's own
// `autofocus` would focus first with the caret before the id, and a fast typist's first
// letters would land there.) This waits for the settle, when htmx has processed the new field:
// focused at the swap, the field took letters typed before htmx listened to it, and their
// search was never asked.
document.addEventListener("htmx:afterSettle", () => {
  const field = document.querySelector(".picker input[data-focus-end]");
  if (!field) return;
  field.removeAttribute("data-focus-end");
  const end = field.value.length;
  field.setSelectionRange(end, end);
  field.focus();
});
