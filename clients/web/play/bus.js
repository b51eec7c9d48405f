// What a person asks of the page, going up: the drawing modules say it (`ask("build", move)`),
// the actions answer it (app.js gives each request its one answer). Drawing never imports an
// action, so the modules stay one way: state, then drawing, then actions.

const answers = new Map();
let failed = (error) => console.error(error);

// The one answer to `request`; a second would hide the first, so it is refused.
export function answer(request, action) {
  if (answers.has(request)) throw new Error(`"${request}" already has an answer`);
  answers.set(request, action);
}

// What to do with an action's failure (the page says it in its notice line).
export function onFailure(handler) {
  failed = handler;
}

// Asks for `request`: the action's result (a promise for the slow ones), its failure said.
export function ask(request, ...args) {
  const action = answers.get(request);
  if (!action) throw new Error(`nothing answers "${request}"`);
  try {
    const result = action(...args);
    if (result && typeof result.then === "function") return result.catch((error) => failed(error));
    return result;
  } catch (error) {
    failed(error);
    return undefined;
  }
}
