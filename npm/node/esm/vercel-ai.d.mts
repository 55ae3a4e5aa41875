export * from '../dist/cjs/integrations/vercel-ai.js';
