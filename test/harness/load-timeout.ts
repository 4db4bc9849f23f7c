import { underLoad } from './budget';

// Every test and hook of a Temporal suite without a timeout of its own: jest's 120 s on a quiet machine,
// stretched by the load when the file starts (a suite beside two others on two cores gets that much more).
jest.setTimeout(underLoad(120_000));
