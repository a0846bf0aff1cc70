const { channels } = await slack.conversations_list({ types: ["public_channel"], exclude_archived: true });
const histories = await Promise.all(channels.map(c =>
  slack.conversations_history({ channel: c.id, oldest: "1773014400" })));
return channels.flatMap((c, i) => histories[i].messages
  .filter(m => /outage/i.test(m.text))
  .map(m => ({ channel: c.name, text: m.text })));
