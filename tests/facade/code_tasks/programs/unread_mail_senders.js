const list = await gmail.messages_list({ user_id: "me", q: "is:unread newer_than:1d" });
const messages = await Promise.all(list.messages.map(m =>
  gmail.messages_get({ user_id: "me", id: m.id, format: "metadata", metadata_headers: ["From", "Subject"] })));
const header = (m, name) => m.payload.headers.find(h => h.name === name)?.value ?? null;
return messages.map(m => ({ from: header(m, "From"), subject: header(m, "Subject") }));
