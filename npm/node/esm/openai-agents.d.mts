export * from '../dist/cjs/integrations/openai-agents.js';
