import type UPlotType from 'uplot';

// uPlot's own ES module, served by the service from node_modules (no bundler, no CDN).
const UPLOT_URL = '/assets/uPlot.esm.js';

/** The uPlot constructor. */
export const UPlot = ((await import(UPLOT_URL)) as { default: typeof UPlotType }).default;
