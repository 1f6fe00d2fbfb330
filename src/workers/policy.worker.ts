// Policy worker entry: exposes the in-thread PolicyEngine over comlink (docs/style.md point 4).
import { expose } from 'comlink';
import { PolicyEngine } from '../rl/runtime/policyEngine.ts';

expose(new PolicyEngine());
