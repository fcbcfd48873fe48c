// Small fixes for every page. Material's search panel is a role="dialog" without a name, which
// screen readers announce as an unnamed dialog; naming it here keeps the theme's templates untouched.
(function () {
  "use strict";
  var dialog = document.querySelector('.md-search[role="dialog"]');
  if (dialog && !dialog.hasAttribute("aria-label")) dialog.setAttribute("aria-label", "Search this site");
})();
