import { describeStorageConformance } from './conformance.js';
import { openMemoryStorage } from './memory-storage.js';

describeStorageConformance('memory:', () => Promise.resolve(openMemoryStorage()));
