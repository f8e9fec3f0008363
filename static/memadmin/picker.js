// A picker whose choice was just made comes back from the server with `autofocus`: put the
// caret after what the field holds (the chosen id and its separator), so typing goes on
// with the next search instead of landing before the id.
document.addEventListener("htmx:afterSettle", (event) => {
  const field = event.target.querySelector?.(".picker input[autofocus]")
    || (event.target.matches?.(".picker") && event.target.querySelector("input[autofocus]"));
  if (!field) return;
  field.focus();
  const end = field.value.length;
  field.setSelectionRange(end, end);
});
