// Applies the remembered theme before the first paint, so pages never flash the wrong colours.
(function () {
  try {
    var theme = localStorage.getItem("theme");
    if (theme === "light" || theme === "dark") document.documentElement.dataset.theme = theme;
  } catch (e) { /* storage may be unavailable (file://, privacy mode) */ }
})();
