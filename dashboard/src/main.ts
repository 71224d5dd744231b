import { errorBox, h } from './dom.js';
import { connectLive } from './live.js';
import { benchView } from './views/bench.js';
import { campaignsView, campaignView } from './views/campaigns.js';
import { datasetsView } from './views/datasets.js';
import { jobsView, jobView } from './views/jobs.js';
import { profilesView } from './views/profiles.js';
import { runsView } from './views/runs.js';
import { studiesView, studyView } from './views/study.js';
import { trialView } from './views/trial.js';

/** A view: draws into `root` from the route's arguments; may return what stops its live updates. */
type View = (root: HTMLElement, args: string[]) => Promise<unknown>;

/** Routes by hash: `#/studies/NAME/trials/3` → the pattern's view with ['NAME', '3']. */
const ROUTES: [RegExp, string, View][] = [
  [/^#?\/?$/, 'campaigns', campaignsView],
  [/^#\/campaigns$/, 'campaigns', campaignsView],
  [/^#\/campaigns\/([^/]+)$/, 'campaigns', campaignView],
  [/^#\/studies$/, 'studies', studiesView],
  [/^#\/studies\/([^/]+)$/, 'studies', studyView],
  [/^#\/studies\/([^/]+)\/trials\/(\d+)$/, 'studies', trialView],
  [/^#\/jobs$/, 'jobs', jobsView],
  [/^#\/jobs\/(\d+)$/, 'jobs', jobView],
  [/^#\/datasets$/, 'datasets', datasetsView],
  [/^#\/datasets\/([^/]+)$/, 'datasets', datasetsView],
  [/^#\/runs$/, 'runs', runsView],
  [/^#\/profiles$/, 'profiles', profilesView],
  [/^#\/bench$/, 'bench', benchView],
];

const view = document.getElementById('view') as HTMLElement;
let stop: (() => void) | undefined;
let drawing = 0;

async function route(): Promise<void> {
  stop?.();
  stop = undefined;
  const hash = location.hash;
  const match = ROUTES.map(([pattern, nav, fn]) => ({ m: pattern.exec(hash), nav, fn })).find(
    (r) => r.m !== null,
  );
  for (const a of document.querySelectorAll<HTMLAnchorElement>('nav a')) {
    a.classList.toggle('active', a.dataset.nav === match?.nav);
  }
  const root = h('div');
  view.replaceChildren(root);
  if (match?.m === null || match === undefined) {
    root.append(h('p', {}, 'No such page. ', h('a', { href: '#/campaigns' }, 'Campaigns')));
    return;
  }
  const mine = ++drawing;
  try {
    const result = await match.fn(root, match.m.slice(1).map(decodeURIComponent));
    const stopper = typeof result === 'function' ? (result as () => void) : undefined;
    if (mine === drawing) stop = stopper;
    else stopper?.();
  } catch (error) {
    root.replaceChildren(errorBox(error));
  }
  document.body.dataset.ready = String(mine);
}

connectLive(document.getElementById('status') as HTMLElement);
window.addEventListener('hashchange', () => void route());
void route();
