// The live stream the table page and the GM's screen share: the server sends the whole changing part of the
// page again on every change (Server-Sent Events), HTML rendered from the templates with all user text
// escaped; it is swapped in, and the body says whether the stream is connected. Loaded before each page's
// own script, which calls liveStream.follow.
"use strict";
var liveStream = (function () {
  // Follow ``address``: each ``kind`` event replaces the content of ``target``. Returns the EventSource.
  function follow(address, kind, target) {
    var source = new EventSource(address);
    var notice = document.getElementById("aviso-vivo");
    source.addEventListener(kind, function (message) {
      target.innerHTML = message.data;
      document.body.setAttribute("data-actualizada", String(Date.now()));
    });
    source.addEventListener("open", function () {
      document.body.classList.remove("sin-conexion");
      if (notice) {
        notice.hidden = false;
      }
    });
    source.addEventListener("error", function () {
      document.body.classList.add("sin-conexion");
    });
    return source;
  }
  return {follow: follow};
})();
