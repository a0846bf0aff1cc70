const release = await github.releases_get_latest({ owner: "octo-org", repo: "hello-world" });
const posted = await slack.chat_post_message({
  channel: "#releases",
  text: `*${release.name}* is out: ${release.html_url}\n${release.body}`,
});
return { ts: posted.ts };
