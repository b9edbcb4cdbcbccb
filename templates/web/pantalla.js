// The GM's screen: the fight follows live (the screen's stream, vivo.js) and the forms post with fetch
// instead of reloading the page. Without JavaScript every form still posts and the server answers with
// the page again.
"use strict";
(function () {
  var screen = document.getElementById("pantalla");
  if (!screen || !window.fetch || !window.EventSource) {
    return;
  }
  var board = document.getElementById("tablero");
  var answer = document.getElementById("respuesta");
  document.body.setAttribute("data-vivo", "");
  var source = liveStream.follow(screen.getAttribute("data-eventos"), "pantalla", board);

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement) || !board.contains(form)) {
      return;
    }
    event.preventDefault();
    form.classList.add("enviando");
    fetch(form.action, {method: "POST", body: new URLSearchParams(new FormData(form)), credentials: "same-origin"})
      .then(function (response) {
        return response.text();
      })
      .then(function (html) {
        var page = new DOMParser().parseFromString(html, "text/html");
        var fresh = page.getElementById("pantalla");
        if (!fresh) {  // a refusal page: show its message
          var refused = page.querySelector(".error");
          answer.textContent = refused ? refused.textContent : "";
          return;
        }
        answer.innerHTML = page.getElementById("respuesta").innerHTML;
        board.innerHTML = page.getElementById("tablero").innerHTML;
        source.close();
        source = liveStream.follow(fresh.getAttribute("data-eventos"), "pantalla", board);
        document.body.setAttribute("data-respondida", String(Date.now()));
      })
      .catch(function () {
        form.classList.remove("enviando");
        document.body.classList.add("sin-conexion");
      });
  });
})();
