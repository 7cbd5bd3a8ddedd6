// Applies the remembered theme before the first paint, so pages never flash the wrong colours.
(function () {
  // Scripts run: the search box and the theme toggle keep their room in the header from the first
  // paint (style.css), so the page does not move down when site.js shows them.
  document.documentElement.classList.add("js");
  try {
    var theme = localStorage.getItem("theme");
    if (theme === "light" || theme === "dark") document.documentElement.dataset.theme = theme;
  } catch (e) { /* storage may be unavailable (file://, privacy mode) */ }
})();
