export { startSimulator } from './start-simulator.ts';
export type { RunningSimulator, SimulatorOptions } from './start-simulator.ts';
export type { SimulatorKnobs } from './simulator-knobs.ts';
export type { SimulatorStats } from './simulator-state.ts';
