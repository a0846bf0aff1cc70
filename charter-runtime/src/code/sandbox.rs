//! What a program's global scope holds: ECMAScript's own objects, `console`, and one frozen
//! object per pack with one async function per tool. Nothing else: no module loader (so
//! `import` fails), no `require`, `fetch`, timers, `process`, `std` or `os`, and once the program
//! is compiled no way to compile more (`eval` is deleted, the `Function` constructors throw), so
//! what a program can do is what its text says.

use std::rc::Rc;

use rquickjs::context::{EvalOptions, intrinsic};
use rquickjs::function::{Opt, Rest};
use rquickjs::object::Property;
use rquickjs::{Context, Ctx, Exception, Function, Object, Promise, Runtime, Value};

use super::Bindings;
use super::outcome::{FILE, Limit, show};
use super::watch::{Queue, Queued, Watch, reject};
use crate::validate;

/// What precedes the program's text: on a line of its own, so the program's line N is the
/// script's line N + 1 and its columns are unchanged.
const PREFIX: &str = "(async function () {\n";

/// What follows it: on a line of its own, so a last line that is a comment ends before it.
const SUFFIX: &str = "\n})";

/// A context with ECMAScript's objects (dates, regular expressions, JSON, maps and sets,
/// promises) and nothing of the host.
pub(super) fn context(runtime: &Runtime) -> rquickjs::Result<Context> {
    // `Eval` is what compiles the program itself; `seal` takes it away before the program runs.
    Context::custom::<(
        intrinsic::Date,
        intrinsic::Eval,
        intrinsic::RegExpCompiler,
        intrinsic::RegExp,
        intrinsic::Json,
        intrinsic::MapSet,
        intrinsic::Promise,
    )>(runtime)
}

/// Defines `console` and the pack objects.
pub(super) fn install<'js>(
    ctx: &Ctx<'js>,
    bindings: &Bindings,
    watch: &Rc<Watch>,
    queue: &Queue<'js>,
) -> rquickjs::Result<()> {
    let globals = ctx.globals();
    let freeze: Function<'js> = globals.get::<_, Object<'js>>("Object")?.get("freeze")?;
    let console = Object::new(ctx.clone())?;
    let log = {
        let watch = watch.clone();
        Function::new(ctx.clone(), move |ctx: Ctx<'js>, args: Rest<Value<'js>>| {
            print(&ctx, &watch, args.0)
        })?
    };
    for name in ["log", "info", "warn", "error", "debug"] {
        console.set(name, log.clone())?;
    }
    freeze.call::<_, ()>((log,))?;
    freeze.call::<_, ()>((console.clone(),))?;
    globals.prop("console", Property::from(console).enumerable())?;
    for pack in &bindings.packs {
        let object = Object::new(ctx.clone())?;
        for (key, name) in &pack.tools {
            let function = tool_function(ctx, Rc::from(name.as_str()), watch, queue)?;
            function.set_name(name)?;
            freeze.call::<_, ()>((function.clone(),))?;
            object.prop(key.as_str(), Property::from(function).enumerable())?;
        }
        freeze.call::<_, ()>((object.clone(),))?;
        globals.prop(pack.global.as_str(), Property::from(object).enumerable())?;
    }
    Ok(())
}

/// Compiles the program as the body of an async function, which it returns uncalled.
pub(super) fn compile<'js>(ctx: &Ctx<'js>, source: &str) -> rquickjs::Result<Function<'js>> {
    let mut text = String::with_capacity(PREFIX.len() + source.len() + SUFFIX.len());
    text.push_str(PREFIX);
    text.push_str(source);
    text.push_str(SUFFIX);
    let mut options = EvalOptions::default();
    options.strict = true;
    options.backtrace_barrier = true;
    options.filename = Some(FILE.to_owned());
    ctx.eval_with_options(text, options)
}

/// Takes away every way to compile code from a string: `eval` is deleted, and `Function`
/// (reached globally or as any function's `constructor`: plain, async, generator, async
/// generator) throws, its `prototype` kept so `instanceof Function` still answers.
pub(super) fn seal(ctx: &Ctx<'_>) -> rquickjs::Result<()> {
    ctx.eval::<(), _>(
        r#""use strict";
(() => {
  const refuse = function Function() {
    throw new EvalError("a RunCode program cannot compile code from a string (eval and Function are not available)");
  };
  Object.defineProperty(refuse, "prototype", { value: Function.prototype });
  for (const f of [function () {}, async function () {}, function* () {}, async function* () {}]) {
    Object.defineProperty(Object.getPrototypeOf(f), "constructor", { value: refuse });
  }
  Object.defineProperty(globalThis, "Function", { value: refuse, enumerable: false });
  delete globalThis.eval;
})();"#,
    )
}

/// One `console` line: strings as they are, other values as JSON (an error as `Name:
/// message`), separated by spaces. Past the output limit the program stops.
fn print<'js>(ctx: &Ctx<'js>, watch: &Watch, args: Vec<Value<'js>>) -> rquickjs::Result<()> {
    let mut line = String::new();
    for (k, value) in args.into_iter().enumerate() {
        if k > 0 {
            line.push(' ');
        }
        line.push_str(&show(ctx, value));
    }
    let mut output = watch.output.borrow_mut();
    output.1 += line.len() + 1;
    if output.1 > watch.limits.max_output_bytes {
        drop(output);
        watch.trip(Limit::Output);
        return Err(Exception::throw_range(
            ctx,
            "console output is over the output limit",
        ));
    }
    output.0.push(line);
    Ok(())
}

/// The async function of one tool: queues the call (its arguments as JSON: own enumerable
/// properties, `undefined` dropped, `toJSON` honoured) and returns the promise its answer
/// settles.
fn tool_function<'js>(
    ctx: &Ctx<'js>,
    name: Rc<str>,
    watch: &Rc<Watch>,
    queue: &Queue<'js>,
) -> rquickjs::Result<Function<'js>> {
    let watch = watch.clone();
    let queue = queue.clone();
    Function::new(
        ctx.clone(),
        move |ctx: Ctx<'js>, arguments: Opt<Value<'js>>| -> rquickjs::Result<Promise<'js>> {
            let calls = watch.calls.get() + 1;
            watch.calls.set(calls);
            if calls > watch.limits.max_calls {
                watch.trip(Limit::Calls);
                return Err(Exception::throw_range(&ctx, "over the tool-call limit"));
            }
            let prepared = prepare(&ctx, &name, arguments.0)?;
            let (promise, resolve, reject_fn) = Promise::new(&ctx)?;
            let mut queued = Queued {
                name: name.clone(),
                arguments: serde_json::Value::Null,
                resolve,
                reject: reject_fn,
                error: Exception::from_message(ctx.clone(), "")?,
            };
            match prepared {
                Ok((arguments, bytes)) => {
                    let held = watch.queued_bytes.get() + bytes;
                    watch.queued_bytes.set(held);
                    if held > watch.limits.memory_bytes {
                        watch.trip(Limit::Memory);
                        return Err(Exception::throw_range(&ctx, "over the memory limit"));
                    }
                    queued.arguments = arguments;
                    queue.borrow_mut().push(queued);
                }
                // Refused before it is sent, with the message a direct call gets.
                Err(message) => reject(&queued, &message)?,
            }
            Ok(promise)
        },
    )
}

/// A call's arguments as JSON and their size, or the message a direct call with them gets.
/// An exception (a cycle, a `BigInt`, a throwing `toJSON`) is thrown where the call is made.
#[allow(clippy::type_complexity)]
fn prepare<'js>(
    ctx: &Ctx<'js>,
    name: &str,
    arguments: Option<Value<'js>>,
) -> rquickjs::Result<Result<(serde_json::Value, usize), String>> {
    let arguments = match arguments {
        None => return Ok(Ok((serde_json::Value::Object(Default::default()), 2))),
        Some(value) if value.is_undefined() => {
            return Ok(Ok((serde_json::Value::Object(Default::default()), 2)));
        }
        Some(value) => value,
    };
    let Some(text) = ctx.json_stringify(arguments)? else {
        // A function or a symbol: not JSON at all.
        return Err(Exception::throw_type(
            ctx,
            &format!("`{name}` takes an object of arguments"),
        ));
    };
    let text = text.to_string()?;
    if text.len() > validate::MAX_ARGUMENT_BYTES {
        return Ok(Err(validate::message_line(
            name,
            &validate::too_large_problem(),
        )));
    }
    match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(value) => Ok(Ok((value, text.len()))),
        // QuickJS writes valid JSON: what serde_json refuses is nesting past its limit.
        Err(_) => Ok(Err(validate::message_line(
            name,
            &validate::too_deep_problem(),
        ))),
    }
}
