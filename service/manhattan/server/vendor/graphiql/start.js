// GraphiQL's start-up (strawberry-graphql's graphiql.html script, MIT, licenses/strawberry.LICENSE),
// in a file of its own so that the page runs under script-src 'self' (no inline script).
const EXAMPLE_QUERY = `# Manhattan rules-as-a-service: GraphiQL, served offline by the service.
# Try:  { rules { rulesVersion editions bots } }
#
#
# GraphiQL is an in-browser tool for writing, validating, and
# testing GraphQL queries.
#
# Type queries into this side of the screen, and you will see intelligent
# typeaheads aware of the current GraphQL type schema and live syntax and
# validation errors highlighted within the text.
#
# GraphQL queries typically start with a "{" character. Lines that starts
# with a # are ignored.
#
# An example GraphQL query might look like:
#
#     {
#       field(arg: "value") {
#         subField
#       }
#     }
#
# Keyboard shortcuts:
#
#       Run Query:  Ctrl-Enter (or press the play button above)
#
#   Auto Complete:  Ctrl-Space (or just start typing)
#
`;

// Parse URL parameters for sharing queries
const parameters = {};

for (const entry of window.location.search.slice(1).split("&")) {
  const eq = entry.indexOf("=");
  if (eq >= 0) {
    parameters[decodeURIComponent(entry.slice(0, eq))] =
      decodeURIComponent(entry.slice(eq + 1));
  }
}

function updateURL(data) {
  Object.assign(parameters, data);

  const newSearch =
    "?" +
    Object.keys(parameters)
      .filter(function (key) {
        return Boolean(parameters[key]);
      })
      .map(function (key) {
        return (
          encodeURIComponent(key) +
          "=" +
          encodeURIComponent(parameters[key])
        );
      })
      .join("&");
  history.replaceState(null, null, newSearch);
}

const fetchURL = window.location.href.split("?")[0];

function httpUrlToWebSockeUrl(url) {
  const parsedURL = new URL(url);
  const protocol = parsedURL.protocol === "http:" ? "ws:" : "wss:";
  parsedURL.protocol = protocol;
  parsedURL.hash = "";
  return parsedURL.toString();
}

const defaultHeaders = {};
const csrfToken = Cookies.get("csrftoken");

if (csrfToken) {
  defaultHeaders["x-csrftoken"] = csrfToken;
}

const subscriptionUrl = httpUrlToWebSockeUrl(fetchURL);

const fetcher = GraphiQL.createFetcher({
  url: fetchURL,
  headers: defaultHeaders,
  subscriptionUrl,
});

function GraphiQLWithExplorer() {
  const [query, setQuery] = React.useState(
    parameters.q || EXAMPLE_QUERY,
  );
  const [variables, setVariables] = React.useState(
    parameters.variables,
  );
  const [headers, setHeaders] = React.useState(parameters.headers);

  function onEditQuery(newQuery) {
    setQuery(newQuery);
    updateURL({ q: newQuery });
  }

  function onEditVariables(newVariables) {
    setVariables(newVariables);
    updateURL({ variables: newVariables });
  }

  function onEditHeaders(newHeaders) {
    setHeaders(newHeaders);
  }

  const explorerPlugin = GraphiQLPluginExplorer.explorerPlugin();

  return React.createElement(GraphiQL, {
    fetcher: fetcher,
    defaultEditorToolsVisibility: true,
    plugins: [explorerPlugin],
    query: query,
    variables: variables,
    headers: headers,
    onEditQuery: onEditQuery,
    onEditVariables: onEditVariables,
    onEditHeaders: onEditHeaders,
    inputValueDeprecation: true,
    isHeadersEditorEnabled: true,
    shouldPersistHeaders: true,
  });
}

const root = ReactDOM.createRoot(document.getElementById("graphiql"));
root.render(React.createElement(GraphiQLWithExplorer));
