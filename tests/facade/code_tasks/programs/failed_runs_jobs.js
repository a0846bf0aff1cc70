const repo = { owner: "octo-org", repo: "hello-world" };
const { workflow_runs } = await github.runs_list({
  ...repo, branch: "main", status: "failure", created: ">=2026-03-09" });
const jobs = await Promise.all(
  workflow_runs.map(run => github.runs_list_jobs({ ...repo, run_id: run.id })));
return workflow_runs.map((run, i) => ({
  run: run.id,
  workflow: run.name,
  failed: jobs[i].jobs
    .filter(job => job.conclusion === "failure")
    .map(job => ({ job: job.name, step: job.steps.find(s => s.conclusion === "failure")?.name ?? null })),
}));
