// The admin's destructive buttons ask first: a form with data-confirm is sent only once confirmed.
"use strict";
document.addEventListener("submit", (e) => {
  const text = e.target.dataset && e.target.dataset.confirm;
  if (text && !window.confirm(text)) e.preventDefault();
});
