// A stand-in with the page's API until branch issue11-page is merged: its file replaces
// this one.

/// The upload page: `html` holds `{{STYLE}}` and `{{SCRIPT}}` where the server puts
/// `style` and `script` inline (their hashes go into the Content-Security-Policy).
enum UploadPage {
  static let html = """
    <!doctype html>
    <html lang="en"><head><meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <link rel="icon" href="data:,">
    <title>Send photos to vault</title>
    <style>{{STYLE}}</style></head>
    <body><h1>Send photos</h1>
    <input id="files" type="file" multiple accept="image/*,.heic,.heif">
    <ul id="results"></ul>
    <script>{{SCRIPT}}</script></body></html>
    """

  static let style = "body{font-family:sans-serif;margin:1em}"

  static let script = """
    document.getElementById('files').addEventListener('change', async (event) => {
      for (const file of event.target.files) {
        const item = document.createElement('li');
        item.textContent = file.name + ': sending';
        document.getElementById('results').append(item);
        const query = 'name=' + encodeURIComponent(file.name) + '&modified=' + file.lastModified;
        try {
          const response = await fetch('upload?' + query, { method: 'POST', body: file });
          const answer = await response.json();
          item.textContent = file.name + ': ' + answer.outcome + (answer.reason ? ' (' + answer.reason + ')' : '');
        } catch (error) {
          item.textContent = file.name + ': failed';
        }
      }
    });
    """
}
