const r = await Promise.all([fz.echo({text: "a"}), fz.echo({text: "a"}), fz.echo({text: "b"})]);
console.log(r.length);
return r.join(",");