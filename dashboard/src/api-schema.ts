/* Generated from docs/openapi.json by scripts/write-api-types.mjs: do not edit. */

export type paths = {
    "/api/campaigns": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** the campaigns in the storage, with their studies */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description campaigns by name */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["CampaignSummary"][];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/campaigns/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** a campaign's report: the seed 000 table's rows, counts, phases, diagnosis */
        get: {
            parameters: {
                query?: {
                    /** @description `true`: each study's best trial's model evaluated on the holdout beside buy-and-hold, as `tradelab campaign report` does (slower: it loads the data and the models) */
                    holdout?: "true" | "false";
                };
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description the report */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["CampaignReport"];
                    };
                };
                /** @description no such */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/campaigns/{name}/report.html": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** a campaign's HTML report (charts included; `?holdout=true` adds the holdout) */
        get: {
            parameters: {
                query?: {
                    /** @description `true`: each study's best trial's model evaluated on the holdout beside buy-and-hold, as `tradelab campaign report` does (slower: it loads the data and the models) */
                    holdout?: "true" | "false";
                };
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description the page */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/html": string;
                    };
                };
                /** @description no such */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/datasets": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** the datasets in the store, and whether their files are whole */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description the datasets, sorted by key */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Dataset"][];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/datasets/{dataset}/closes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** a dataset's closes, thinned to at most `points` evenly spaced bars (for a chart) */
        get: {
            parameters: {
                query?: {
                    points?: number;
                };
                header?: never;
                path: {
                    dataset: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description the closes */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["CloseSeries"];
                    };
                };
                /** @description bad key */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description no such */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** server-sent events: job, log, trial, study */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description an event stream (text/event-stream), one JSON object per event */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/event-stream": string;
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** liveness: answers without a token */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description alive */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Health"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/info": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** the service: version, project, profile, job pool and the commands jobs may run */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description the service */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Info"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/jobs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** jobs, newest first */
        get: {
            parameters: {
                query?: {
                    /** @description ids below this */
                    before?: number | null;
                    command?: string;
                    limit?: number;
                    /** @description commands starting with this, e.g. `bench` */
                    prefix?: string;
                    /** @description comma-separated job states */
                    state?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description jobs */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Job"][];
                    };
                };
                /** @description bad request */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        /** queue a job: one of the commands /api/info lists, with its options */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": components["schemas"]["JobRequest"];
                };
            };
            responses: {
                /** @description queued */
                201: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Job"];
                    };
                };
                /** @description bad request */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description a path outside the project */
                403: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/jobs/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** one job */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description the job */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Job"];
                    };
                };
                /** @description bad request */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description no such job */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description wrong state */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/jobs/{id}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** cancel a job */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description the job */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Job"];
                    };
                };
                /** @description bad request */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description no such job */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description wrong state */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/jobs/{id}/log": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** a job's log lines after `after` (follow it by passing the last seq you saw) */
        get: {
            parameters: {
                query?: {
                    after?: number | null;
                    limit?: number;
                };
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description lines */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["JobLogLine"][];
                    };
                };
                /** @description bad request */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description no such job */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description wrong state */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/jobs/{id}/retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** queue an ended job again (a new job) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: number;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description the job */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Job"];
                    };
                };
                /** @description bad request */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description no such job */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description wrong state */
                409: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/plan": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** the planner's worker plan on this machine's profile, with the memory arithmetic */
        get: {
            parameters: {
                query?: {
                    /** @description drl, forecast or tcn */
                    workload?: "drl" | "forecast" | "tcn";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description the plan */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Plan"];
                    };
                };
                /** @description bad query */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/profiles": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** built-in and custom GPU profiles */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description the profiles, built-ins first */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Profile"][];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/runs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** training runs (train ppo) and pretraining runs (pretrain tcn), newest first */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description runs */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Run"][];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/runs/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** a run's run file: settings, data, progress, results */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description manifest.json (train ppo) or run.json (pretrain tcn), as written */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description no such run */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/runs/{name}/report.html": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** a run's HTML report */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description the report */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "text/html": string;
                    };
                };
                /** @description no such run */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/studies": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** every study: counts, best trial, campaign */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description studies */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Study"][];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/studies/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** one study */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description the study */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Study"];
                    };
                };
                /** @description bad request */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/studies/{name}/importance": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** parameter importance (a random forest's permutation importance on complete trials) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description shares */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["ParamImportance"];
                    };
                };
                /** @description bad request */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/studies/{name}/trials": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** a study's trials, sorted and filtered */
        get: {
            parameters: {
                query?: {
                    limit?: number;
                    offset?: number | null;
                    order?: "asc" | "desc";
                    sort?: "number" | "value" | "duration";
                    /** @description comma-separated states, e.g. complete,pruned */
                    state?: string;
                };
                header?: never;
                path: {
                    name: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description trials */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Trial"][];
                    };
                };
                /** @description bad request */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/studies/{name}/trials/{number}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** one trial, with its intermediate values */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                    number: number | null;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description the trial */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Trial"];
                    };
                };
                /** @description bad request */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/studies/{name}/trials/{number}/equity": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** a trading trial's out-of-sample equity against buy-and-hold on the same bars, with the verdict */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    name: string;
                    number: number | null;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description curves */
                200: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["TrialEquity"];
                    };
                };
                /** @description bad request */
                400: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
                /** @description not found */
                404: {
                    headers: {
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": components["schemas"]["Error"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
};
export type webhooks = Record<string, never>;
export type components = {
    schemas: {
        /** @description what `tradelab campaign report NAME --format json --no-holdout` prints */
        CampaignReport: {
            diagnosis: string[];
            generatedAt: number;
            name: string;
            phases: {
                other: number;
                rollout: number;
                trials: number;
                update: number;
            };
            storage: string;
            studies: ({
                counts: {
                    best?: {
                        number: number;
                        value: number | null;
                    } & {
                        [key: string]: unknown;
                    };
                    complete: number;
                    done: number;
                    failed: number;
                    meanDurationMs: number | null;
                    perHour: number | null;
                    pruned: number;
                    retried: number;
                    running: number;
                    total: number;
                    waiting: number;
                } & {
                    [key: string]: unknown;
                };
                /** @enum {string} */
                direction: "minimize" | "maximize";
                /** @description with `?holdout=true`: the best trial on the holdout */
                holdout?: {
                    benchmarkReturn: number;
                    benchmarkSharpe: number;
                    sharpe: number;
                    totalReturn: number;
                    trial: number;
                } & {
                    [key: string]: unknown;
                };
                key: string;
                preset: string;
                splits: number;
                /** @enum {string} */
                state: "pending" | "running" | "done";
                study: string;
                target: number;
                trials: ({
                    number: number;
                    state: string;
                    value: number | null;
                } & {
                    [key: string]: unknown;
                })[];
            } & {
                [key: string]: unknown;
            })[];
            total: {
                counts: {
                    best?: {
                        number: number;
                        value: number | null;
                    } & {
                        [key: string]: unknown;
                    };
                    complete: number;
                    done: number;
                    failed: number;
                    meanDurationMs: number | null;
                    perHour: number | null;
                    pruned: number;
                    retried: number;
                    running: number;
                    total: number;
                    waiting: number;
                } & {
                    [key: string]: unknown;
                };
                target: number;
            } & {
                [key: string]: unknown;
            };
        } & {
            [key: string]: unknown;
        };
        CampaignSummary: {
            name: string;
            studies: string[];
        };
        CloseSeries: {
            close: number[];
            dataset: string;
            /** @description bar open times, ms UTC */
            times: number[];
        };
        Dataset: {
            adjusted: boolean;
            calendar: string;
            /** @example BTCUSDT:1h */
            dataset: string;
            derivedFrom: string | null;
            firstMs: number;
            lastMs: number;
            rows: number;
            /** @enum {string} */
            status: "ok" | "missing" | "damaged";
            symbol: string;
            timeframe: string;
            updatedAt: string;
        };
        Distribution: {
            high: number;
            log: boolean;
            low: number;
            step: number | null;
            /** @enum {string} */
            type: "float";
        } | {
            high: number;
            log: boolean;
            low: number;
            step: number;
            /** @enum {string} */
            type: "int";
        } | {
            choices: (number | string | boolean | null)[];
            /** @enum {string} */
            type: "categorical";
        };
        Error: {
            error: {
                /** @example STUDY_NOT_FOUND */
                code: string;
                details?: {
                    [key: string]: unknown;
                };
                hint?: string;
                /** @example no study named "ppo-btc" */
                message: string;
            };
        };
        Finding: {
            /** @description what to try, in the CLI's own flags */
            advice?: string;
            /** @enum {string} */
            kind: "ahead-of-benchmark" | "behind-benchmark" | "no-evidence" | "fees-ate-return" | "extreme-turnover" | "critic-not-learned" | "terminated";
            /**
             * @description `warning`: something to fix; `info`: how the range compares
             * @enum {string}
             */
            severity: "warning" | "info";
            text: string;
        };
        Health: {
            /** @enum {boolean} */
            ok: true;
            version: string;
        };
        Info: {
            commands: {
                command: string;
                options: {
                    description: string;
                    name: string;
                    /** @enum {string} */
                    type: "string" | "boolean";
                    value?: string;
                }[];
                positionals: {
                    description: string;
                    name: string;
                    required: boolean;
                }[];
                summary: string;
            }[];
            pool: {
                busy: number;
                limitedBy: string;
                slots: number;
                workload: string;
            };
            profile: {
                displayName: string;
                name: string;
                origin: string;
                /** @description flag, env, file, detected or default */
                source: string;
                vendor: string;
                vramGb: number;
            };
            /** @description the project directory */
            root: string;
            /** @description the study storage URL (its job queue too) */
            storage: string;
            version: string;
        };
        Job: {
            /** @description what runs, after `tradelab` */
            argv: string[];
            cancelRequested: boolean;
            createdAt: number;
            error: string | null;
            exitCode: number | null;
            finishedAt: number | null;
            heartbeatAt: number | null;
            id: number;
            pid: number | null;
            progress: {
                at: number;
                percent: number | null;
                text: string;
            } | null;
            request: {
                command: string;
                options: {
                    [key: string]: string | number | boolean;
                };
                positionals: string[];
            };
            /** @description the JSON objects the command printed (`--json`) */
            result: unknown[];
            retryOf: number | null;
            runner: string | null;
            slots: number;
            startedAt: number | null;
            /** @enum {string} */
            state: "queued" | "running" | "succeeded" | "failed" | "cancelled" | "interrupted";
        };
        Job_bench_campaign: {
            /**
             * @description FinRL_Crypto's CPCV study (10 assets, 5m, 25,000 bars, 10 splits, 2×512 MLPs) as a tradelab study: trials/hour on 1 worker, workers auto, and with the pruner; the share of the machine's compute limit; with --runs gpu, resident on the GPU engine against the CPU run (enum property replaced by openapi-typescript)
             * @enum {string}
             */
            command: "bench campaign";
            /** @default {} */
            options: {
                /** @description N: trials of the gpu run (default 16) */
                "gpu-trials"?: string | number;
                /** @description N: trials of the pruned run (default 14; the median pruner waits for 5) */
                "pruned-trials"?: string | number;
                /** @description LIST: which runs: one, auto, pruned (the CPU; the default), gpu (the trials resident on tradelab's engine, as many at once as the planner fits; with auto, their ratio) */
                runs?: string | number;
                /** @description N: env steps per split (default FinRL_Crypto's 15000; less is a quick look, not a measurement) */
                steps?: string | number;
                /** @description N: trials of each run without pruning (default 4 on 1 worker, 6 on workers auto) */
                trials?: string | number;
            };
            /**
             * @description none
             * @default []
             */
            positionals: string[];
        };
        Job_bench_data: {
            /**
             * @description benchmark import, resample, features and loading on a synthetic 1-minute CSV (enum property replaced by openapi-typescript)
             * @enum {string}
             */
            command: "bench data";
            /** @default {} */
            options: {
                /** @description R: runs per measurement; the median is reported (default 3) */
                repeat?: string | number;
                /** @description N: rows of the 1-minute CSV (default 2600000: about five years of 1-minute bars) */
                rows?: string | number;
            };
            /**
             * @description none
             * @default []
             */
            positionals: string[];
        };
        Job_bench_env: {
            /**
             * @description benchmark the vectorized trading env: aggregate env steps/s per nEnvs, random actions, one thread, and on the GPU when there is one (enum property replaced by openapi-typescript)
             * @enum {string}
             */
            command: "bench env";
            /** @default {} */
            options: {
                /** @description N: assets per env (default 10) */
                assets?: string | number;
                /** @description LIST: nEnvs values, comma-separated (default 1,16,256,2048) */
                envs?: string | number;
                /** @description F: features per asset, random values (default 7) */
                features?: string | number;
                /** @description WHEN: rows of the env stepped on the GPU: auto (a hardware adapter; default), always (a software one too), never */
                gpu?: string | number;
                /** @description LIST: nEnvs values of the GPU rows, comma-separated (default 1024,65536,1048576) */
                "gpu-envs"?: string | number;
                /** @description L: bars of features per observation (default 1) */
                lookback?: string | number;
                /** @description R: runs per measurement; the median is reported (default 3) */
                repeat?: string | number;
                /** @description N: env steps per run, summed over envs (default 2000000) */
                steps?: string | number;
            };
            /**
             * @description none
             * @default []
             */
            positionals: string[];
        };
        Job_bench_eval: {
            /**
             * @description benchmark evaluation as a study runs it: one deterministic episode per test range, the actor's forward pass every bar (enum property replaced by openapi-typescript)
             * @enum {string}
             */
            command: "bench eval";
            /** @default {} */
            options: {
                /** @description N: assets, the action dimension (default 10) */
                assets?: string | number;
                /** @description N: bars per range (default 2000) */
                bars?: string | number;
                /** @description LIST: hidden units per layer to measure (default 512,2048) */
                "net-dims"?: string | number;
                /** @description LIST: test ranges evaluated together, one forward pass for all (default 1,2) */
                ranges?: string | number;
                /** @description R: runs per measurement; the median is reported (default 3) */
                repeat?: string | number;
            };
            /**
             * @description none
             * @default []
             */
            positionals: string[];
        };
        Job_bench_learn: {
            /**
             * @description PPO's held-out Sharpe beside buy-and-hold on synthetic markets: planted signal vs random walk (enum property replaced by openapi-typescript)
             * @enum {string}
             */
            command: "bench learn";
            /** @default {} */
            options: {
                /** @description S: fraction (default: actions are orders), units, or target (actions are positions) */
                "action-scaling"?: string | number;
                /** @description P: close (default: an action fills at the next bar's close) or open (at the next bar's open) */
                "execution-price"?: string | number;
                /** @description K=V,…: PPO settings over the check's own, e.g. annealLr=true,targetKl=0.02 */
                ppo?: string | number;
                /** @description X: a no-trade band: gaps to a target, or orders, of at most this share of the portfolio are not traded */
                "rebalance-band"?: string | number;
                /** @description LIST: seeds per signal (default 1,2,3,4,5) */
                seeds?: string | number;
                /** @description LIST: planted signal strengths (default 0.2,0.1,0.05,0) */
                signals?: string | number;
                /** @description N: env steps of training per run (default 300000) */
                steps?: string | number;
                /** @description X: subtracted from the reward per unit of notional traded, on top of the fees (e.g. 0.001: 10 bps more) */
                "turnover-penalty"?: string | number;
            };
            /**
             * @description none
             * @default []
             */
            positionals: string[];
        };
        Job_bench_ppo: {
            /**
             * @description benchmark PPO training end to end: env steps/s, rollout/update phase split, per nEnvs (enum property replaced by openapi-typescript)
             * @enum {string}
             */
            command: "bench ppo";
            /** @default {} */
            options: {
                /** @description N: assets, the action dimension (default 4) */
                assets?: string | number;
                /** @description N: minibatch size (default 512) */
                "batch-size"?: string | number;
                /** @description LIST: nEnvs values (default 16) */
                envs?: string | number;
                /** @description N: hidden units per layer (default 256) */
                "net-dim"?: string | number;
                /** @description N: passes over each rollout (default 8) */
                "repeat-times"?: string | number;
                /** @description LIST: nEnvs values of rows with the whole trial on the GPU (env, rollout, update), comma-separated; with --backend gpu */
                "resident-envs"?: string | number;
                /** @description N: env steps per update (default 2048) */
                "target-step"?: string | number;
                /** @description N: updates measured after a warm-up (default 5) */
                updates?: string | number;
            };
            /**
             * @description none
             * @default []
             */
            positionals: string[];
        };
        Job_bench_ppo_update: {
            /**
             * @description benchmark one PPO minibatch update (forward, backward, Adam) in samples/s per matmul path, one thread, and where its time goes (enum property replaced by openapi-typescript)
             * @enum {string}
             */
            command: "bench ppo-update";
            /** @default {} */
            options: {
                /** @description N: action dimension (default 4) */
                actions?: string | number;
                /** @description N: minibatch size (default 4096) */
                batch?: string | number;
                /** @description N: hidden units per layer (default 512) */
                "net-dim"?: string | number;
                /** @description skip the table of where an update goes (products, element-wise, optimizer…) */
                "no-split"?: boolean;
                /** @description skip the wasm backend's stock kernels (slow: ~50 s a run at the defaults) */
                "no-stock"?: boolean;
                /** @description NET: the actor's network: mlp (default) or ft_transformer */
                policy?: string | number;
                /** @description NAME: finrl: FinRL_Crypto's shapes (state 81, netDim 512, actions 10, batch 2048); flags override */
                preset?: string | number;
                /** @description R: auto (default: PyTorch's update on the same shapes, one thread, in this run, when python3 has PyTorch; TRADELAB_PYTHON picks the interpreter) or never */
                reference?: string | number;
                /** @description R: runs per measurement; the median is reported (default 3) */
                repeat?: string | number;
                /** @description N: state dimension (default 64) */
                state?: string | number;
                /** @description N: updates per run (default 5) */
                updates?: string | number;
                /** @description WHEN: auto: add a webgpu row on a hardware adapter (default); always: on any adapter; never */
                webgpu?: string | number;
            };
            /**
             * @description none
             * @default []
             */
            positionals: string[];
        };
        Job_bench_tcn: {
            /**
             * @description benchmark TCN training steps (forward, backward, Adam): it/s, chunks/s, timesteps/s, memory with and without checkpointing, where the time goes (enum property replaced by openapi-typescript)
             * @enum {string}
             */
            command: "bench tcn";
            /** @default {} */
            options: {
                /** @description B: wasm (default: native kernels), gpu (tradelab's GPU engine) or webgpu (tfjs's ops on a GPU adapter) */
                backend?: string | number;
                /** @description N: chunks a step (default 32) */
                batch?: string | number;
                /** @description both|on|off: gradient checkpointing modes to measure (default both) */
                checkpoint?: string | number;
                /** @description X: dropout (default 0.1) */
                dropout?: string | number;
                /** @description F: features a bar (default 8) */
                features?: string | number;
                /** @description N: channels (default 64) */
                hidden?: string | number;
                /** @description K: taps a convolution (default 3) */
                kernel?: string | number;
                /** @description N: residual blocks (default 6) */
                layers?: string | number;
                /** @description R: auto (default: PyTorch's step on the first shape without checkpointing, one thread, in this run, when python3 has PyTorch; TRADELAB_PYTHON picks the interpreter) or never */
                reference?: string | number;
                /** @description R: runs per figure; the median is reported (default 3) */
                repeat?: string | number;
                /** @description N: bars a chunk (default 512) */
                seq?: string | number;
                /** @description N: steps a run (default 5) */
                steps?: string | number;
                /** @description chunks=N,…: measure each chunk count (samples/s is the figure to compare) */
                sweep?: string | number;
            };
            /**
             * @description none
             * @default []
             */
            positionals: string[];
        };
        Job_bench_tune: {
            /**
             * @description benchmark the study engine: trials/s in memory, on SQLite and from worker processes; TPE time per suggestion (enum property replaced by openapi-typescript)
             * @enum {string}
             */
            command: "bench tune";
            /** @default {} */
            options: {
                /** @description LIST: finished trials behind each TPE suggestion (default 100,1000,2000,10000) */
                history?: string | number;
                /** @description LIST: worker-process counts on one SQLite file (default 2,8) */
                processes?: string | number;
                /** @description R: runs per measurement; the median is reported (default 3) */
                repeat?: string | number;
                /** @description N: trials per throughput run (default 500) */
                trials?: string | number;
            };
            /**
             * @description none
             * @default []
             */
            positionals: string[];
        };
        Job_campaign_run: {
            /**
             * @description run a campaign file: its studies at once, workers shared by weight; run again to continue (enum property replaced by openapi-typescript)
             * @enum {string}
             */
            command: "campaign run";
            /** @default {} */
            options: {
                /** @description auto|N: worker processes (default: the file's workers:, else auto: what the planner fits for the largest trial of any study) */
                workers?: string | number;
            };
            /**
             * @description FILE: the campaign file (YAML or JSON)
             * @default []
             */
            positionals: string[];
        };
        Job_data_resample: {
            /**
             * @description aggregate a dataset to coarser timeframes (one new dataset each) (enum property replaced by openapi-typescript)
             * @enum {string}
             */
            command: "data resample";
            /** @default {} */
            options: {
                /** @description B: daily bars end at utc midnight or the session close (default: session, utc for 24/7) */
                daily?: string | number;
                /** @description replace a target dataset of another origin (imported, synthetic, resampled from another) */
                force?: boolean;
                /** @description TF,...: target timeframes, e.g. 5m,15m,30m,1h,4h,1d (required) */
                to?: string | number;
            };
            /**
             * @description SYM:TF: the source dataset
             * @default []
             */
            positionals: string[];
        };
        Job_data_synth: {
            /**
             * @description generate correlated synthetic assets (GARCH, fat tails, regimes, optional planted signal) into the store (enum property replaced by openapi-typescript)
             * @enum {string}
             */
            command: "data synth";
            /** @default {} */
            options: {
                /** @description T: bars per symbol (default 10000) */
                bars?: string | number;
                /** @description C: 24/7 (default), us-equities or fx */
                calendar?: string | number;
                /** @description replace datasets of another origin (imported or resampled) of the same names */
                force?: boolean;
                /** @description S: random seed: same seed, same bytes (default 1) */
                seed?: string | number;
                /** @description X: planted momentum strength, per-bar Sharpe of the ideal strategy (default 0: none) */
                signal?: string | number;
                /** @description DATE: first bar (default 2020-01-01) */
                start?: string | number;
                /** @description N|A,B: how many symbols (SYN0, SYN1, …) or their names (default 3) */
                symbols?: string | number;
                /** @description TF: bar timeframe (default 1h) */
                timeframe?: string | number;
            };
            /**
             * @description none
             * @default []
             */
            positionals: string[];
        };
        Job_pretrain_tcn: {
            /**
             * @description pretrain a TCN on log forward realized volatility beside HAR-RV: epoch table, checkpoints, early stopping, report (enum property replaced by openapi-typescript)
             * @enum {string}
             */
            command: "pretrain tcn";
            /** @default {} */
            options: {
                /** @description N: micro-batches a step, gradient accumulation (default 4) */
                accum?: string | number;
                /** @description gradient checkpointing on (default: on when the step would not fit without it) */
                checkpoint?: boolean;
                /** @description N: bars a chunk (default 512) */
                "chunk-len"?: string | number;
                /** @description N: chunks a micro-batch (default: the profile's tcn.chunksPerBatch, as many as fit) */
                chunks?: string | number;
                /** @description SYM[,SYM]:TF: intraday bars of one or more symbols (required unless --resume) */
                data?: string | number;
                /** @description X: dropout after each convolution (default 0.1) */
                dropout?: string | number;
                /** @description N: most epochs (default 100; --resume may raise it) */
                epochs?: string | number;
                /** @description N: channels (default 64; the TCN benchmarks (PyTorch original) used 512) */
                hidden?: string | number;
                /** @description H: sessions of the forward RV target (default 22) */
                horizon?: string | number;
                /** @description K: taps a convolution (default 3) */
                kernel?: string | number;
                /** @description N: residual blocks, dilation 2^i (default 6; the TCN benchmarks (PyTorch original) used 12) */
                layers?: string | number;
                /** @description X: Adam's learning rate (default 1e-3) */
                lr?: string | number;
                /** @description gradient checkpointing off */
                "no-checkpoint"?: boolean;
                /** @description DIR: run directory: run.json, checkpoint/, model/ (best epoch), report.html */
                out?: string | number;
                /** @description N: epochs without a better validation loss before stopping (default 10) */
                patience?: string | number;
                /** @description P: fp32 (default), bf16 or fp16: reduced only where the backend computes it (says so otherwise) */
                precision?: string | number;
                /** @description continue the run in --out from its last epoch, with its settings */
                resume?: boolean;
                /** @description N: seed of weights, chunks and dropout (default 0) */
                seed?: string | number;
                /** @description N: optimizer steps an epoch (default 500) */
                "steps-per-epoch"?: string | number;
                /** @description print the layer table, parameter count and memory plan, and stop */
                summary?: boolean;
                /** @description N|all: threads of the native GEMM's products (default all cores) */
                threads?: string | number;
            };
            /**
             * @description none
             * @default []
             */
            positionals: string[];
        };
        Job_study_run: {
            /**
             * @description run trials of a study in worker processes; Ctrl-C finishes running trials, twice stops them (enum property replaced by openapi-typescript)
             * @enum {string}
             */
            command: "study run";
            /** @default {} */
            options: {
                /** @description S: start no trial after S seconds (running ones finish) */
                timeout?: string | number;
                /** @description N: trials to finish (required unless --timeout) */
                trials?: string | number;
                /** @description auto|N: worker processes (default auto: what the planner fits, at most --trials) */
                workers?: string | number;
            };
            /**
             * @description NAME: the study (create it first)
             * @default []
             */
            positionals: string[];
        };
        Job_train_forecast: {
            /**
             * @description train a set of forecasting models in parallel workers sized by the profile, scored alone and as their mean ensemble (enum property replaced by openapi-typescript)
             * @enum {string}
             */
            command: "train forecast";
            /** @default {} */
            options: {
                /** @description N: chunks a step (default: the profile's forecast batch size for the timeframe) */
                "batch-size"?: string | number;
                /** @description N: bars a chunk (default 64) */
                "chunk-len"?: string | number;
                /** @description SYM[,SYM]:TF: symbols at one timeframe (required) */
                data?: string | number;
                /** @description N: epochs a model (default 10) */
                epochs?: string | number;
                /** @description N: TCN channels or MLP width (default 32) */
                hidden?: string | number;
                /** @description H: bars ahead for return (default 1), sessions for rv (default 22) */
                horizon?: string | number;
                /** @description N: TCN blocks (default 4) or MLP layers (default 2) */
                layers?: string | number;
                /** @description X: Adam's learning rate (default 1e-3) */
                lr?: string | number;
                /** @description KIND: tcn (default) or mlp (on the chunk's last bars) */
                model?: string | number;
                /** @description N: models in the set, one seed each (default 5) */
                models?: string | number;
                /** @description N: seed of model 0; model i gets seed + i (default 0) */
                seed?: string | number;
                /** @description N: steps an epoch (default 100) */
                "steps-per-epoch"?: string | number;
                /** @description T: return (default: the forward log return) or rv (log forward realized volatility) */
                target?: string | number;
                /** @description auto|N: models at once (default auto: as many as the planner fits) */
                workers?: string | number;
            };
            /**
             * @description none
             * @default []
             */
            positionals: string[];
        };
        Job_train_ppo: {
            /**
             * @description train PPO on market data, checkpoint, and evaluate the policy on a held-out range beside buy-and-hold (enum property replaced by openapi-typescript)
             * @enum {string}
             */
            command: "train ppo";
            /** @default {} */
            options: {
                /** @description S: fraction (default: an action is an order, a share of the portfolio), units, or target (an action is a position: the target weight of its asset) */
                "action-scaling"?: string | number;
                /** @description N: minibatch size (default 512) */
                "batch-size"?: string | number;
                /** @description K: updates between checkpoints (default 10) */
                "checkpoint-every"?: string | number;
                /** @description SYM[,SYM]:TF: symbols at one timeframe (required unless --resume) */
                data?: string | number;
                /** @description X: entropy bonus, lambdaEntropy (default 0.01) */
                entropy?: string | number;
                /** @description N: envs stepped together, nEnvs (default 16) */
                envs?: string | number;
                /** @description N: steps per training episode, from a random start (default 256) */
                "episode-length"?: string | number;
                /** @description P: close (default: an action fills at the next bar's close) or open (at the next bar's open, the first price after the bar the agent saw) */
                "execution-price"?: string | number;
                /** @description X: fee per buy and per sell, basis points (default 10) */
                "fee-bps"?: string | number;
                /** @description X: discount (default 0.99) */
                gamma?: string | number;
                /** @description X: GAE's lambda (default 0.95) */
                "lambda-gae"?: string | number;
                /** @description N: hidden layers per network (default 2) */
                layers?: string | number;
                /** @description N: bars of features per observation (default 1) */
                lookback?: string | number;
                /** @description X: Adam's learning rate (default 3e-4) */
                lr?: string | number;
                /** @description N: hidden units per layer (default 256) */
                "net-dim"?: string | number;
                /** @description train on the env's raw rewards, not divided by the running sd of the discounted return (normalizeRewards false) */
                "no-reward-scaling"?: boolean;
                /** @description skip the evaluation */
                "no-test"?: boolean;
                /** @description DIR: run directory: manifest, checkpoints, model, report (required) */
                out?: string | number;
                /** @description NET: the actor's network: mlp (default), ft_transformer, or tcn:DIR (an MLP over the features and the frozen encoder of a `pretrain tcn` run) */
                policy?: string | number;
                /** @description X: PPO clip range (default 0.2) */
                "ratio-clip"?: string | number;
                /** @description X: a no-trade band: with target positions, gaps to the target of at most this share of the portfolio are not traded; with orders, orders of at most this share are not placed (e.g. 0.1) */
                "rebalance-band"?: string | number;
                /** @description N: passes over each rollout (default 8) */
                "repeat-times"?: string | number;
                /** @description continue the run in --out from its last checkpoint, with its settings */
                resume?: boolean;
                /** @description R: value-change (default) or excess (over buy-and-hold) */
                reward?: string | number;
                /** @description N: seed of networks, noise, minibatches, env starts (default 0) */
                seed?: string | number;
                /** @description N: total env steps, breakStep (default 200000) */
                steps?: string | number;
                /** @description N: env steps per update, across envs (default 2048) */
                "target-step"?: string | number;
                /** @description RANGE: held-out evaluation bars (default: the bars after --train) */
                test?: string | number;
                /** @description N|all: threads of the native GEMM's matrix products (default all cores; --resume keeps the run's) */
                threads?: string | number;
                /** @description RANGE: training bars: dates 2021-01-01..2022-06-30 or indices 0..5000 (default first 80%) */
                train?: string | number;
                /** @description X: subtracted from the reward per unit of notional traded, on top of the fees (default 0; e.g. 0.001: 10 bps more) */
                "turnover-penalty"?: string | number;
            };
            /**
             * @description none
             * @default []
             */
            positionals: string[];
        };
        JobLogLine: {
            at: number;
            seq: number;
            /** @enum {string} */
            stream: "stdout" | "stderr";
            text: string;
        };
        JobRequest: components["schemas"]["Job_train_ppo"] | components["schemas"]["Job_train_forecast"] | components["schemas"]["Job_pretrain_tcn"] | components["schemas"]["Job_study_run"] | components["schemas"]["Job_campaign_run"] | components["schemas"]["Job_data_synth"] | components["schemas"]["Job_data_resample"] | components["schemas"]["Job_bench_data"] | components["schemas"]["Job_bench_env"] | components["schemas"]["Job_bench_eval"] | components["schemas"]["Job_bench_ppo"] | components["schemas"]["Job_bench_ppo_update"] | components["schemas"]["Job_bench_tcn"] | components["schemas"]["Job_bench_tune"] | components["schemas"]["Job_bench_campaign"] | components["schemas"]["Job_bench_learn"];
        ParamImportance: {
            fixed: string[];
            params: {
                encoding: string;
                errorIncrease: number;
                param: string;
                share: number;
            }[];
            reason?: string;
            trials: number;
        };
        Plan: {
            backend: string;
            batchSize: number;
            fits: boolean;
            limitedBy: string;
            limits: {
                by: string;
                detail: string;
                workers: number;
            }[];
            memoryKind: string;
            nEnvs: number;
            paramCount: number | null;
            perWorker: {
                bytes: number;
                formula: string;
                label: string;
            }[];
            perWorkerBytes: number;
            profile: string;
            /** @description held once per worker process by its resident trials (empty otherwise) */
            shared: {
                bytes: number;
                formula: string;
                label: string;
            }[];
            sharedBytes: number;
            source: string;
            /** @description trials one worker process runs at once (resident on the card) */
            trialsPerProcess: number;
            usable: {
                bytes: number;
                formula: string;
                label: string;
            };
            workers: number;
            workload: string;
        };
        /** @description every field of `tradelab profiles show` */
        Profile: {
            aliases: string[];
            displayName: string;
            hourlyUsd?: number | null;
            name: string;
            origin: string;
            vendor: string;
            vramGb: number;
        } & {
            [key: string]: unknown;
        };
        Run: {
            /** @description the data it trained on */
            data: string | null;
            /**
             * @description `train ppo` or `pretrain tcn`
             * @enum {string}
             */
            kind: "ppo" | "tcn";
            /** @example btc-1h */
            name: string;
            /** @description it has a report.html */
            report: boolean;
            /** @description running, finished, interrupted, stopped, … */
            status: string;
            /** @description when its run file last changed (ms) */
            updatedAt: number;
        };
        Study: {
            best: {
                number: number;
                value: number | null;
            } | null;
            campaign: string | null;
            completionRate: number | null;
            /** @description `done` = complete + pruned + failed; a failure that was enqueued again is `retried`, not `failed` (its retry counts once it ends) */
            counts: {
                complete: number;
                done: number;
                failed: number;
                pruned: number;
                retried: number;
                running: number;
                total: number;
                waiting: number;
            };
            createdAt: number;
            /** @enum {string} */
            direction: "minimize" | "maximize";
            /** @description `drl` for a trading study, else `custom` */
            kind: string;
            meanDurationMs: number | null;
            name: string;
            /** @description trials done per hour from the first start to the last end */
            perHour: number | null;
            pruneRate: number | null;
            systemAttrs: {
                [key: string]: unknown;
            };
        };
        Trial: {
            createdAt: number;
            /** @description each parameter's search space (a log range draws on a log axis) */
            distributions: {
                [key: string]: components["schemas"]["Distribution"];
            };
            durationMs: number | null;
            failReason: string | null;
            finishedAt: number | null;
            /** @description reported values by step (the split index of a trading study) */
            intermediate: {
                [key: string]: number;
            };
            number: number;
            params: {
                [key: string]: number | string | boolean | null;
            };
            retryOf: number | null;
            startedAt: number | null;
            /** @enum {string} */
            state: "waiting" | "running" | "complete" | "pruned" | "fail";
            userAttrs: {
                [key: string]: unknown;
            };
            value: number | null;
            workerId: string | null;
        };
        TrialEquity: {
            benchmark: number[];
            /** @description the verdict on the two curves: buy-and-hold beaten or not (a block bootstrap of the Sharpe difference), extreme turnover */
            findings: components["schemas"]["Finding"][];
            strategy: number[];
            study: string;
            times: number[];
            trial: number;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
};
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
