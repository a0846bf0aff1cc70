const charges = await stripe.charges_list({ created_gte: 1772841600, limit: 100 });
const failed = charges.data.filter(c => c.status === "failed");
const ids = [...new Set(failed.map(c => c.customer))];
const customers = await Promise.all(ids.map(id => stripe.customers_get({ customer: id })));
const email = Object.fromEntries(customers.map(c => [c.id, c.email]));
return failed.map(c => ({ email: email[c.customer], amount: c.amount / 100, reason: c.failure_message }));
