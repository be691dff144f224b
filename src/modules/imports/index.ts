// The imports module's face: uploads to Lectern's own storage and import runs of
// Markdown archives into spaces and change requests (service.ts says how). Nothing else imports it;
// the registry lists its routes, types and job.
export { importRoutes } from './routes.js';
export { importsHttpRoutes } from './http.js';
export { importJobs, IMPORT_RUN_JOB } from './service.js';
export { exportSpaceArchive } from './export.js';
