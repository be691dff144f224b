// The app module's face: the routes that serve the built single-page app at /app.
export { appHttpRoutes } from './http.js';
