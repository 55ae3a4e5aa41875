export * from '../dist/cjs/integrations/index.js';
