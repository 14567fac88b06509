#[rt::main]
async fn main() {
    rt::select! {
        v = std::future::ready(1) => v
        w = std::future::ready(2) => w,
    };
}
