// The REST reference's start-up. A file, not an inline script: pages are served with
// script-src 'self' (server/pages.py). The document is the service's own /openapi.json, and no
// validator badge asks validator.swagger.io about it, so the page works offline.
window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  validatorUrl: null,
  defaultModelsExpandDepth: 0,
  docExpansion: "list",
});
