const repo = { owner: "octo-org", repo: "hello-world" };
const bugs = await github.issues_list({
  ...repo, labels: ["bug"], assignee: "none", sort: "created", direction: "asc" });
const comments = await Promise.all(
  bugs.map(issue => github.issue_comments_list({ ...repo, issue_number: issue.number })));
return bugs.map((issue, i) => ({
  number: issue.number,
  title: issue.title,
  last_comment_by: comments[i].at(-1)?.user.login ?? null,
}));
