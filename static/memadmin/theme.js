// The theme switch at the foot of every page: a new choice repaints the page at once (the
// stylesheet reads <html data-theme>); htmx posts the same change so the server remembers
// it. Without this script the form's "Set theme" button posts it, and the page comes back
// in the new theme.
document.documentElement.classList.add("js");
document.addEventListener("change", (event) => {
  const choice = event.target.closest("#theme-choice");
  if (choice) document.documentElement.dataset.theme = choice.value;
});
