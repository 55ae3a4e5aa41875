export * from '../dist/cjs/integrations/mastra.js';
