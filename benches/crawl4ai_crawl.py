#!/usr/bin/env python3
"""Crawl4AI's side of `pagesight-bench crawl`: the same crawl, through Crawl4AI.

Usage:
  crawl4ai_crawl.py --cdp-url http://127.0.0.1:PORT --concurrency N --out OUT.jsonl URLS.txt

Attaches to the running Chromium at --cdp-url (Crawl4AI launches no browser of its own then),
crawls every URL of URLS.txt (one a line) with at most N pages at once (a semaphore over
`AsyncWebCrawler.arun`, so exactly N are in flight while there is work), and writes one JSON
line per URL, flushed as each page is done:

  {"url": "...", "success": true, "status": 200, "ms": 812.4,
   "markdown": "<result.markdown.fit_markdown>", "rawChars": 12345, "error": "...only on failure..."}

The configuration is the one a user of Crawl4AI's markdown gets without an LLM: cache bypassed,
`DefaultMarkdownGenerator` with its pruning filter (the filtered "fit" markdown); `--filter`
chooses between the lxml implementation Crawl4AI 0.9 recommends and the BeautifulSoup one.
Run it with the Python of an environment where `crawl4ai` is installed; set
CRAWL4AI_NO_CLOUD_NOTICE=1 to quiet its banner. A summary goes to stderr.
"""
import argparse
import asyncio
import json
import sys
import time


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('urls', help='a file of URLs, one a line')
    ap.add_argument('--cdp-url', required=True, help='the running Chromium, http://127.0.0.1:PORT')
    ap.add_argument('--concurrency', type=int, default=1)
    ap.add_argument('--out', required=True, help='where to write the JSON lines')
    ap.add_argument('--page-timeout', type=float, default=30.0, help='seconds per page')
    ap.add_argument('--filter', choices=['lxml', 'bs4'], default='lxml',
                    help='the pruning filter: PruningContentFilterLXML (default; Crawl4AI 0.9 '
                         'deprecates the other for it, same output) or PruningContentFilter')
    return ap.parse_args()


def markdown_of(result):
    md = getattr(result, 'markdown', None)
    if md is None:
        return '', 0
    fit = getattr(md, 'fit_markdown', None) or ''
    raw = getattr(md, 'raw_markdown', None) or ''
    return fit, len(raw)


async def crawl(args, urls):
    from crawl4ai import AsyncWebCrawler, BrowserConfig, CacheMode, CrawlerRunConfig
    if args.filter == 'lxml':
        from crawl4ai import PruningContentFilterLXML as Pruning
    else:
        from crawl4ai.content_filter_strategy import PruningContentFilter as Pruning
    from crawl4ai.markdown_generation_strategy import DefaultMarkdownGenerator

    browser = BrowserConfig(cdp_url=args.cdp_url, verbose=False)
    run = CrawlerRunConfig(
        cache_mode=CacheMode.BYPASS,
        markdown_generator=DefaultMarkdownGenerator(content_filter=Pruning()),
        page_timeout=int(args.page_timeout * 1000),
        verbose=False,
    )
    gate = asyncio.Semaphore(max(1, args.concurrency))
    done = {'ok': 0, 'failed': 0}
    with open(args.out, 'w', encoding='utf-8') as out:

        def write(line):
            out.write(json.dumps(line, ensure_ascii=False) + '\n')
            out.flush()

        async with AsyncWebCrawler(config=browser) as crawler:

            async def one(url):
                async with gate:
                    start = time.monotonic()
                    line = {'url': url}
                    try:
                        result = await crawler.arun(url=url, config=run)
                        fit, raw_chars = markdown_of(result)
                        line.update(success=bool(result.success), status=result.status_code,
                                    markdown=fit, rawChars=raw_chars)
                        if not result.success:
                            line['error'] = str(result.error_message or 'failed')
                    except Exception as e:  # one page's failure is that page's line
                        line.update(success=False, error=f'{type(e).__name__}: {e}')
                    line['ms'] = round((time.monotonic() - start) * 1000, 1)
                    done['ok' if line.get('success') else 'failed'] += 1
                    write(line)

            await asyncio.gather(*(one(u) for u in urls))
    return done


def main():
    args = parse_args()
    with open(args.urls, encoding='utf-8') as f:
        urls = [u.strip() for u in f if u.strip()]
    start = time.monotonic()
    done = asyncio.run(crawl(args, urls))
    wall = time.monotonic() - start
    print(f'crawl4ai: {len(urls)} urls, {done["ok"]} ok, {done["failed"]} failed, {wall:.1f} s',
          file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main())
