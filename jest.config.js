// Components log every webhook and call at info; tests show warnings and errors unless LOG_LEVEL says otherwise.
process.env.LOG_LEVEL ??= 'warn';

/** @type {import('jest').Config} */
const transform = { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] };

module.exports = {
  testTimeout: 120_000,
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/test/harness/summary-reporter.js'],
  projects: [
    {
      // Pure logic and HTTP-only tests (bank client, sandbox, CSV): no Temporal server needed.
      displayName: 'standalone',
      testEnvironment: 'node',
      transform,
      roots: ['<rootDir>/test'],
      testMatch: ['**/*.test.ts'],
      testPathIgnorePatterns: [
        '/node_modules/',
        '<rootDir>/test/temporal/',
        '<rootDir>/test/workflows-time/',
      ],
    },
    {
      // The real workflows on Temporal's time-skipping test server with stub activities: hours in seconds.
      displayName: 'time-skipping',
      testEnvironment: 'node',
      transform,
      roots: ['<rootDir>/test/workflows-time'],
      testMatch: ['**/*.test.ts'],
      globalSetup: '<rootDir>/test/workflows-time/global-setup.ts',
      setupFilesAfterEnv: ['<rootDir>/test/harness/load-timeout.ts'],
    },
    {
      // Tests under test/temporal/ share one real Temporal dev server, started once per run.
      displayName: 'temporal',
      testEnvironment: 'node',
      transform,
      roots: ['<rootDir>/test/temporal'],
      testMatch: ['**/*.test.ts'],
      globalSetup: '<rootDir>/test/harness/global-setup.ts',
      globalTeardown: '<rootDir>/test/harness/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/harness/load-timeout.ts'],
    },
  ],
};
