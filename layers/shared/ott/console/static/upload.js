// A file sent from the browser straight to S3 with the form a staff route gave (ott/uploads.py: a presigned POST of
// one key, a size range, a short expiry): API Gateway's 10 MB body and 29-second limits are why it never passes
// through the API. XMLHttpRequest rather than fetch, for the upload's progress.

function storageMessage(text) {
  const message = /<Message>([^<]*)<\/Message>/.exec(text || "");
  return message ? message[1] : null;
}

// Resolves with the form's key once S3 has the file; `onProgress` gets the share sent so far (0 to 1).
export function uploadFile(form, file, onProgress = () => {}) {
  if (file.size === 0) return Promise.reject(new Error(`${file.name} is empty`));
  if (file.size > form.maxBytes) {
    return Promise.reject(new Error(`${file.name} is ${file.size} bytes; at most ${form.maxBytes} may be uploaded`));
  }
  const body = new FormData();
  for (const [name, value] of Object.entries(form.fields)) body.append(name, value);
  body.append("file", file); // S3 takes the file as the form's last field
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open("POST", form.url);
    request.upload.addEventListener("progress", (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    });
    request.addEventListener("load", () => {
      if (request.status >= 200 && request.status < 300) {
        onProgress(1);
        resolve(form.key);
      } else {
        reject(new Error(`storage refused the file: ${storageMessage(request.responseText) || request.status}`));
      }
    });
    request.addEventListener("error", () => reject(new Error("storage did not answer (the network, or its CORS rules); try again")));
    request.send(body);
  });
}
