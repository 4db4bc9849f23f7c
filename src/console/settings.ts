/** The console's settings are read with the rest of payrun's, in src/config/console.ts. */
export { loadConsoleSettings, type ConsoleSettings } from '../config/console';
