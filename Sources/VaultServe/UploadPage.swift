/// The one page `vault serve` shows: choose photos (or drop them), send them one request
/// each, see each one's outcome. It only sends; nothing on it reads from the vault.
///
/// The server sends a Content-Security-Policy that allows no inline code but the page's
/// one `<style>` and one `<script>`, by their SHA-256 hashes. So they are kept apart from
/// the markup: the server hashes `style` and `script` as they are, and puts them in place
/// of `{{STYLE}}` and `{{SCRIPT}}` in `html` (each placeholder is the whole content of its
/// element, so the element holds exactly the hashed text). Hence the rules for all three:
/// no `on…=` attributes, no `style=` attributes, no eval, no URL outside the page's own
/// origin (the icon is `data:`, the fonts are the system's).
enum UploadPage {
  /// The markup, with `{{STYLE}}` and `{{SCRIPT}}` where the style and script go.
  static let html = #"""
    <!doctype html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="color-scheme" content="light dark">
    <meta name="referrer" content="no-referrer">
    <link rel="icon" href="data:,">
    <title>Send photos to your vault</title>
    <style>{{STYLE}}</style>
    </head>
    <body>
    <main>
    <h1>Send photos to your vault</h1>
    <p id="plain-http" class="note" hidden>This connection is not encrypted: anyone on this network can see the photos you send.</p>
    <div id="drop" class="drop">
    <input type="file" id="files" class="visually-hidden" multiple accept="image/*,video/mp4,video/quicktime,video/x-m4v,.heic,.heif,.gif,.webp,.avif,.mp4,.mov,.m4v">
    <label for="files" class="choose"><svg aria-hidden="true" viewBox="0 0 24 24" width="28" height="28" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"><path d="M12 16V4M6.5 9.5 12 4l5.5 5.5M4 15v3a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2v-3"/></svg><span>Choose photos and videos</span></label>
    <p class="drop-hint">or drop them anywhere on this page</p>
    <p class="formats">Photos: JPEG, PNG, HEIC, GIF, WebP, AVIF. Videos: MP4, MOV, M4V, up to 8 GiB each.</p>
    </div>
    <p id="folder-note" class="note" role="status" hidden></p>
    <section id="batch" class="batch" aria-labelledby="batch-text" hidden>
    <p id="batch-text" class="batch-text"></p>
    <progress id="batch-progress" max="1" value="0" aria-labelledby="batch-text"></progress>
    </section>
    <ul id="uploads" class="uploads" aria-label="Photos sent from this page"></ul>
    <div id="announcer" class="visually-hidden" role="log" aria-live="polite"></div>
    <p class="about">Photos go straight into the vault, encrypted as they arrive. This page can only send: it never shows what the vault holds.</p>
    </main>
    <script>{{SCRIPT}}</script>
    </body>
    </html>
    """#

  /// The page's only style sheet: mobile first, light and dark.
  static let style = #"""
    :root {
      color-scheme: light dark;
      --bg: #f4f5f7; --card: #ffffff; --text: #1b1f24; --muted: #586170; --line: #d3d8df;
      --accent: #1d5bd0; --on-accent: #ffffff; --track: #e3e6eb; --drop: #eef3fd;
      --ok: #1a7f37; --bad: #c0262d; --warn: #975a00;
    }
    @media (prefers-color-scheme: dark) {
      :root {
        --bg: #101216; --card: #1a1d23; --text: #e7e9ec; --muted: #9ba4b0; --line: #323843;
        --accent: #5b95ff; --on-accent: #0b1220; --track: #2e343e; --drop: #17233a;
        --ok: #4cc36b; --bad: #ff7474; --warn: #e7b547;
      }
    }
    *, *::before, *::after { box-sizing: border-box; }
    [hidden] { display: none !important; }
    html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }
    body {
      margin: 0; background: var(--bg); color: var(--text);
      font: 1rem/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif;
    }
    main { max-width: 42rem; margin: 0 auto; padding: 1.25rem 1rem 3rem; }
    h1 { font-size: 1.4rem; line-height: 1.2; margin: 0 0 1rem; }
    .about { color: var(--muted); margin: 1.25rem 0 0; font-size: .95rem; }
    .note {
      margin: 1rem 0; padding: .75rem 1rem; border-radius: .75rem;
      border: 1px solid var(--warn); color: var(--warn); background: var(--card);
    }
    .drop { text-align: center; }
    body.dragging .drop { border-color: var(--accent); background: var(--drop); }
    .choose {
      display: flex; align-items: center; justify-content: center; gap: .6rem;
      width: 100%; min-height: 4rem; padding: 1rem 1.25rem; border-radius: 1rem;
      background: var(--accent); color: var(--on-accent);
      font-size: 1.25rem; font-weight: 650; cursor: pointer;
      -webkit-user-select: none; user-select: none; -webkit-tap-highlight-color: transparent;
    }
    .choose:hover { filter: brightness(1.08); }
    .choose:active { filter: brightness(.92); }
    .choose svg { flex: none; }
    #files:focus-visible + .choose { outline: 3px solid var(--text); outline-offset: 3px; }
    .drop-hint { display: none; margin: .75rem 0 0; color: var(--muted); }
    .formats { margin: .75rem 0 0; color: var(--muted); font-size: .9rem; }
    /* Wide screens are where photos get dragged in: the drop area shows there. */
    @media (min-width: 48em) {
      main { padding-top: 3rem; }
      h1 { font-size: 1.75rem; margin-bottom: 1.5rem; }
      .drop {
        padding: 2.25rem 2rem 1.5rem; border: 2px dashed var(--line); border-radius: 1.25rem;
        background: var(--card);
      }
      .choose { width: auto; display: inline-flex; min-width: 17rem; }
      .drop-hint { display: block; }
    }
    .visually-hidden {
      position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; border: 0;
      overflow: hidden; clip: rect(0 0 0 0); clip-path: inset(50%); white-space: nowrap;
    }
    progress {
      -webkit-appearance: none; appearance: none; display: block; width: 100%; height: .5rem;
      border: 0; border-radius: 999px; background: var(--track); color: var(--accent); overflow: hidden;
    }
    progress::-webkit-progress-bar { background: var(--track); border-radius: 999px; }
    progress::-webkit-progress-value { background: var(--accent); border-radius: 999px; }
    progress::-moz-progress-bar { background: var(--accent); border-radius: 999px; }
    .batch {
      margin: 1rem 0 0; padding: .6rem 1rem .8rem; line-height: 1.35; border-radius: 1rem;
      background: var(--card); border: 1px solid var(--line);
    }
    .batch-text { margin: 0 0 .5rem; font-weight: 600; }
    .batch progress { height: .75rem; }
    .batch[data-state="done"] progress::-webkit-progress-value { background: var(--ok); }
    .batch[data-state="done"] progress::-moz-progress-bar { background: var(--ok); }
    .batch[data-state="failed"] progress::-webkit-progress-value { background: var(--warn); }
    .batch[data-state="failed"] progress::-moz-progress-bar { background: var(--warn); }
    .uploads { list-style: none; margin: .5rem 0 0; padding: 0; display: grid; grid-template-columns: minmax(0, 1fr); gap: .4rem; }
    .upload {
      padding: .45rem 1rem .4rem; line-height: 1.35; border-radius: 1rem; background: var(--card); border: 1px solid var(--line);
    }
    .upload-head { display: flex; align-items: baseline; gap: .75rem; }
    .upload-name { flex: 1; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; font-weight: 600; }
    .upload-size { flex: none; color: var(--muted); font-size: .9rem; font-variant-numeric: tabular-nums; }
    .upload progress { height: .4rem; margin: .35rem 0 .25rem; }
    .upload-foot { display: flex; align-items: center; gap: .75rem; }
    .outcome { flex: 1; min-width: 0; margin: 0; color: var(--muted); overflow-wrap: anywhere; }
    .outcome::before { display: inline-block; width: 1.3em; font-weight: 700; }
    [data-state="added"] .outcome { color: var(--ok); }
    [data-state="added"] .outcome::before { content: "\2713"; }
    [data-state="duplicate"] .outcome { color: var(--text); }
    [data-state="duplicate"] .outcome::before { content: "\2713"; color: var(--muted); }
    [data-state="refused"] .outcome { color: var(--bad); }
    [data-state="refused"] .outcome::before { content: "\2715"; }
    [data-state="failed"] .outcome { color: var(--warn); }
    [data-state="failed"] .outcome::before { content: "!"; }
    [data-state="added"] progress::-webkit-progress-value { background: var(--ok); }
    [data-state="added"] progress::-moz-progress-bar { background: var(--ok); }
    [data-state="duplicate"] progress::-webkit-progress-value { background: var(--muted); }
    [data-state="duplicate"] progress::-moz-progress-bar { background: var(--muted); }
    [data-state="refused"] progress::-webkit-progress-value { background: var(--bad); }
    [data-state="refused"] progress::-moz-progress-bar { background: var(--bad); }
    [data-state="failed"] progress::-webkit-progress-value { background: var(--warn); }
    [data-state="failed"] progress::-moz-progress-bar { background: var(--warn); }
    .retry {
      flex: none; min-width: 6rem; min-height: 2.75rem; padding: .5rem 1rem; border-radius: .75rem;
      border: 2px solid var(--accent); background: transparent; color: var(--accent);
      font: inherit; font-weight: 650; cursor: pointer;
    }
    .retry:hover { background: var(--drop); }
    .retry:focus-visible { outline: 3px solid var(--text); outline-offset: 2px; }
    """#

  /// The page's only script: a queue of uploads, a few at a time, one request each.
  static let script = #"""
    'use strict';
    (function () {
      // A few at a time: enough to keep a phone's Wi-Fi busy, few enough that the server's
      // memory budget is not what makes them wait.
      const uploadsAtOnce = 3;
      const base = location.pathname.endsWith('/') ? location.pathname : location.pathname + '/';
      const input = document.getElementById('files');
      const list = document.getElementById('uploads');
      const announcer = document.getElementById('announcer');
      const batchBox = document.getElementById('batch');
      const batchBar = document.getElementById('batch-progress');
      const batchText = document.getElementById('batch-text');
      const folderNote = document.getElementById('folder-note');
      const uploads = [];
      const waiting = [];
      let sending = 0;
      // The uploads since the page was last idle: what the batch bar measures.
      let batch = [];

      if (location.protocol === 'http:') {
        document.getElementById('plain-http').hidden = false;
      }

      function formatBytes(bytes) {
        if (bytes < 1000) return bytes + ' B';
        if (bytes < 1000 * 1000) return (bytes / 1000).toFixed(0) + ' kB';
        if (bytes < 1000 * 1000 * 1000) return (bytes / 1000 / 1000).toFixed(1) + ' MB';
        return (bytes / 1000 / 1000 / 1000).toFixed(2) + ' GB';
      }

      function element(tag, className, text) {
        const node = document.createElement(tag);
        if (className) node.className = className;
        if (text !== undefined) node.textContent = text;
        return node;
      }

      function isSettled(upload) {
        return upload.state !== 'waiting' && upload.state !== 'sending' && upload.state !== 'saving';
      }

      function makeUpload(file) {
        const item = element('li', 'upload');
        item.dataset.name = file.name;
        const head = element('div', 'upload-head');
        head.append(element('span', 'upload-name', file.name), element('span', 'upload-size', formatBytes(file.size)));
        const bar = element('progress');
        bar.max = Math.max(file.size, 1);
        bar.value = 0;
        bar.setAttribute('aria-label', file.name);
        const foot = element('div', 'upload-foot');
        const outcome = element('p', 'outcome');
        const retry = element('button', 'retry', 'Retry');
        retry.type = 'button';
        retry.hidden = true;
        retry.setAttribute('aria-label', 'Retry ' + file.name);
        foot.append(outcome, retry);
        item.append(head, bar, foot);
        list.append(item);
        const upload = { file: file, item: item, bar: bar, outcome: outcome, retry: retry, state: '', sent: 0 };
        uploads.push(upload);
        retry.addEventListener('click', function () {
          enqueue(upload);
          outcome.focus();
        });
        outcome.tabIndex = -1;
        return upload;
      }

      function show(upload, state, text) {
        upload.state = state;
        upload.item.dataset.state = state;
        upload.outcome.textContent = text;
        upload.retry.hidden = state !== 'failed';
        if (isSettled(upload)) {
          announcer.append(element('p', '', upload.file.name + ': ' + text));
        }
      }

      function enqueue(upload) {
        if (batch.every(isSettled)) batch = [];
        if (batch.indexOf(upload) < 0) batch.push(upload);
        upload.sent = 0;
        upload.bar.value = 0;
        show(upload, 'waiting', 'Waiting');
        waiting.push(upload);
        startWaiting();
        showBatch();
      }

      function startWaiting() {
        while (sending < uploadsAtOnce && waiting.length > 0) send(waiting.shift());
      }

      function send(upload) {
        sending += 1;
        show(upload, 'sending', 'Sending');
        const file = upload.file;
        const request = new XMLHttpRequest();
        let query = 'name=' + encodeURIComponent(file.name);
        if (file.lastModified) query += '&modified=' + encodeURIComponent(String(file.lastModified));
        request.open('POST', base + 'upload?' + query);
        request.upload.addEventListener('progress', function (event) {
          upload.sent = event.loaded;
          upload.bar.value = Math.min(event.loaded, upload.bar.max);
          showBatch();
        });
        request.upload.addEventListener('load', function () {
          upload.sent = file.size;
          upload.bar.value = upload.bar.max;
          show(upload, 'saving', 'Saving');
          showBatch();
        });
        request.addEventListener('loadend', function () {
          sending -= 1;
          settle(upload, request);
          startWaiting();
          showBatch();
        });
        request.send(file);
      }

      function answer(request) {
        try {
          const parsed = JSON.parse(request.responseText);
          return parsed && typeof parsed === 'object' ? parsed : {};
        } catch (error) {
          return {};
        }
      }

      function settle(upload, request) {
        const status = request.status;
        const body = answer(request);
        if (status === 0) {
          upload.bar.value = 0;
          show(upload, 'failed', 'Network error: not sent. Is vault serve still running?');
        } else if (body.outcome === 'added') {
          upload.bar.value = upload.bar.max;
          show(upload, 'added', 'Added');
        } else if (body.outcome === 'duplicate') {
          upload.bar.value = upload.bar.max;
          show(upload, 'duplicate', 'Already in the vault');
        } else if (status === 503 || status === 429 || status >= 500) {
          // The server may take it later: busy, or this device asked too often.
          const reason = body.reason || (status === 429 ? 'too many requests; wait a minute' : 'the server answered ' + status);
          show(upload, 'failed', 'Not sent: ' + reason);
        } else if (status === 404) {
          show(upload, 'failed', 'Not sent: this address no longer works. Open the one vault serve shows now.');
        } else {
          show(upload, 'refused', 'Refused: ' + (body.reason || 'the server answered ' + status));
        }
      }

      function photos(count) {
        return count === 1 ? '1 photo' : count + ' photos';
      }

      // While a batch is sending, the bar and the text follow it; once it is over, the
      // text sums up every photo sent from this page.
      function showBatch() {
        if (batch.length === 0) return;
        let total = 0;
        let done = 0;
        let settled = 0;
        batch.forEach(function (upload) {
          const size = Math.max(upload.file.size, 1);
          total += size;
          if (isSettled(upload)) {
            done += size;
            settled += 1;
          } else {
            done += Math.min(upload.sent, size);
          }
        });
        batchBar.max = total;
        batchBar.value = done;
        batchBox.hidden = false;
        if (settled < batch.length) {
          batchBox.dataset.state = 'sending';
          const percent = Math.min(99, Math.floor((100 * done) / total));
          batchText.textContent = 'Sending ' + photos(batch.length) + ': ' + settled + ' done, ' + percent + '%';
          return;
        }
        const counts = { added: 0, duplicate: 0, refused: 0, failed: 0 };
        uploads.forEach(function (upload) {
          counts[upload.state] += 1;
        });
        batchBox.dataset.state = counts.failed ? 'failed' : 'done';
        const parts = [];
        if (counts.added) parts.push(counts.added + ' added');
        if (counts.duplicate) parts.push(counts.duplicate + ' already in the vault');
        if (counts.refused) parts.push(counts.refused + ' refused');
        if (counts.failed) parts.push(counts.failed + ' not sent');
        batchText.textContent = photos(uploads.length) + ': ' + parts.join(', ');
      }

      function take(files) {
        Array.prototype.forEach.call(files, function (file) {
          enqueue(makeUpload(file));
        });
      }

      input.addEventListener('change', function () {
        take(input.files);
        // Choosing the same photo again must send it again.
        input.value = '';
      });

      // Dropping anywhere sends the photos rather than opening them in place of the page.
      let dragDepth = 0;
      document.addEventListener('dragenter', function (event) {
        event.preventDefault();
        dragDepth += 1;
        document.body.classList.add('dragging');
      });
      document.addEventListener('dragleave', function () {
        dragDepth = Math.max(dragDepth - 1, 0);
        if (dragDepth === 0) document.body.classList.remove('dragging');
      });
      document.addEventListener('dragover', function (event) {
        event.preventDefault();
        if (event.dataTransfer) event.dataTransfer.dropEffect = 'copy';
      });
      document.addEventListener('drop', function (event) {
        event.preventDefault();
        dragDepth = 0;
        document.body.classList.remove('dragging');
        const transfer = event.dataTransfer;
        if (!transfer) return;
        const files = [];
        const folders = [];
        if (transfer.items) {
          Array.prototype.forEach.call(transfer.items, function (item) {
            if (item.kind !== 'file') return;
            // A dropped folder arrives as a File that cannot be read: skip it, and say so.
            const entry = item.webkitGetAsEntry ? item.webkitGetAsEntry() : null;
            const file = item.getAsFile();
            if (!file) return;
            if (entry && entry.isDirectory) {
              folders.push(file.name);
              return;
            }
            files.push(file);
          });
        } else {
          Array.prototype.push.apply(files, transfer.files);
        }
        folderNote.hidden = folders.length === 0;
        folderNote.textContent = 'Folders are not sent (' + folders.join(', ') + '): drop the photos inside them.';
        take(files);
      });

      window.addEventListener('beforeunload', function (event) {
        if (batch.some(function (upload) { return !isSettled(upload); })) {
          event.preventDefault();
          event.returnValue = '';
        }
      });
    })();
    """#
}
