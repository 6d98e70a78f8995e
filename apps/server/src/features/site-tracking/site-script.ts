/**
 * The script customers put on their site (GET /site.js). Plain ES5-era JavaScript, no dependencies, about 4 kB (1.7 kB gzipped):
 * it keeps a first-party anonymous id (localStorage and a cookie), keeps the `hrld_id` an email click brought
 * (and takes it out of the address bar), sends a page view on load and on single-page navigation, and sends each
 * submitted form's fields, leaving out passwords, hidden fields, files and card data. Everything goes to
 * /v1/site-tracking/collect as text/plain JSON with `keepalive`, so no preflight and no lost submissions.
 */
export const siteScript = `/* Herald site tracking */
(function () {
  var script = document.currentScript;
  if (!script || window.__herald) return;
  var key = script.getAttribute('data-write-key');
  if (!key) return;
  window.__herald = true;
  var endpoint = new URL(script.src).origin + '/v1/site-tracking/collect';
  var year = 60 * 60 * 24 * 365;
  function cookie(name) {
    var m = document.cookie.match(new RegExp('(?:^|; )' + name + '=([^;]*)'));
    return m ? decodeURIComponent(m[1]) : null;
  }
  function read(name) {
    try { var v = localStorage.getItem(name); if (v) return v; } catch (e) {}
    return cookie(name);
  }
  function keep(name, value) {
    try { localStorage.setItem(name, value); } catch (e) {}
    document.cookie = name + '=' + encodeURIComponent(value) + '; path=/; max-age=' + year + '; SameSite=Lax';
  }
  function randomId() {
    var bytes = new Uint8Array(16);
    (window.crypto || window.msCrypto).getRandomValues(bytes);
    var out = '';
    for (var i = 0; i < bytes.length; i++) out += (bytes[i] + 256).toString(16).slice(1);
    return out;
  }
  var anonymousId = read('hrld_anon');
  if (!anonymousId || !/^[A-Za-z0-9_-]{8,64}$/.test(anonymousId)) anonymousId = randomId();
  keep('hrld_anon', anonymousId);
  var params = new URLSearchParams(location.search);
  var fromEmail = params.get('hrld_id');
  if (fromEmail && fromEmail.length < 200) {
    keep('hrld_id', fromEmail);
    params.delete('hrld_id');
    var rest = params.toString();
    try { history.replaceState(history.state, '', location.pathname + (rest ? '?' + rest : '') + location.hash); } catch (e) {}
  }
  function send(events) {
    var body = { writeKey: key, anonymousId: anonymousId, events: events };
    var identity = read('hrld_id');
    if (identity) body.identity = identity;
    try {
      fetch(endpoint, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'text/plain' }, keepalive: true, credentials: 'omit' })
        .catch(function () {});
    } catch (e) {}
  }
  var lastPage = null;
  function page() {
    if (location.href === lastPage) return;
    lastPage = location.href;
    var event = { type: 'page', url: location.href, title: document.title.slice(0, 1000) };
    if (document.referrer) event.referrer = document.referrer.slice(0, 2048);
    send([event]);
  }
  var skipped = /^(password|hidden|file|submit|button|reset|image)$/;
  var secret = /pass|pwd|card|cc-|cvv|cvc|csc|security.?code|iban|ssn/i;
  function fields(form) {
    var out = [];
    for (var i = 0; i < form.elements.length && out.length < 200; i++) {
      var el = form.elements[i];
      var name = el.name || el.id;
      var type = (el.type || el.tagName || '').toLowerCase();
      if (!name || el.disabled || skipped.test(type) || secret.test(name) || secret.test(el.autocomplete || '')) continue;
      if ((type === 'checkbox' || type === 'radio') && !el.checked) continue;
      if (type === 'select-multiple') {
        for (var j = 0; j < el.options.length; j++) if (el.options[j].selected) out.push({ name: name, type: type, value: el.options[j].value.slice(0, 5000) });
        continue;
      }
      out.push({ name: name.slice(0, 200), type: type.slice(0, 50), value: String(el.value).slice(0, 5000) });
    }
    return out;
  }
  document.addEventListener('submit', function (event) {
    var form = event.target;
    if (!form || form.tagName !== 'FORM' || form.hasAttribute('data-herald-ignore')) return;
    var info = {};
    if (form.id) info.id = form.id.slice(0, 200);
    if (form.getAttribute('name')) info.name = form.getAttribute('name').slice(0, 200);
    send([{ type: 'form', url: location.href, form: info, fields: fields(form) }]);
  }, true);
  ['pushState', 'replaceState'].forEach(function (method) {
    var original = history[method];
    history[method] = function () { var result = original.apply(this, arguments); setTimeout(page, 0); return result; };
  });
  window.addEventListener('popstate', page);
  page();
})();
`;
