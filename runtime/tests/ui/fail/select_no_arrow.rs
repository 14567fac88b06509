#[rt::main]
async fn main() {
    rt::select! {
        v = std::future::ready(1), v => v,
    };
}
